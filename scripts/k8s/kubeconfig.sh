#!/usr/bin/env bash
# Writes a kubeconfig for one client certificate (the control plane's admin, the test node's kubelet).
#   kubeconfig.sh SERVER CA_FILE CERT_FILE KEY_FILE USER OUT
set -euo pipefail
server="$1" ca="$2" cert="$3" key="$4" user="$5" out="$6"
cat > "$out" <<KC
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {server: "$server", certificate-authority: "$ca"}
users:
- name: $user
  user: {client-certificate: "$cert", client-key: "$key"}
contexts:
- name: local
  context: {cluster: local, user: $user}
current-context: local
KC
chmod 600 "$out"
