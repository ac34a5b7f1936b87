package io.mdfanout.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Two "hosts" on one machine: network namespaces A and B joined by a veth pair with a 1500-byte MTU,
 * each with its loopback up, multicast on the veth and a route for 224.0.0.0/4 through it. Roles run
 * in a namespace through {@link #prefix(boolean)} ({@code ip netns exec NS}, which execs the command).
 * The names carry this JVM's pid; closing deletes both namespaces (which removes the veth pair), and a
 * shutdown hook does the same if the JVM ends without closing. Namespaces left by an earlier run whose
 * JVM no longer exists are deleted at start. Needs root and iproute2.
 */
final class TwoHosts implements AutoCloseable
{
    static final int LINK_MTU = 1500;
    private static final String PREFIX = "mdf2h-";
    private static final Pattern OWN_NAME = Pattern.compile("^" + PREFIX + "[ab]-(\\d+)$");

    private final String namespaceA;
    private final String namespaceB;
    private final String vethA;
    private final String vethB;
    private final String addressA;
    private final String addressB;
    private final Thread cleanupHook;
    private boolean closed;

    /**
     * Create both namespaces and the link.
     *
     * @param subnet the first three octets of the link's /24 (inside the namespaces only), e.g. "10.213.0".
     * @throws IOException with a message that says what is missing when namespaces cannot be made here.
     */
    TwoHosts(final String subnet) throws IOException, InterruptedException
    {
        requireNamespaces();
        final long pid = ProcessHandle.current().pid();
        namespaceA = PREFIX + "a-" + pid;
        namespaceB = PREFIX + "b-" + pid;
        vethA = "mdf2ha" + pid % 1_000_000_000L;
        vethB = "mdf2hb" + pid % 1_000_000_000L;
        addressA = subnet + ".1";
        addressB = subnet + ".2";
        removeStale();
        cleanupHook = new Thread(this::deleteNamespaces, "two-hosts-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanupHook);
        try
        {
            ip("netns", "add", namespaceA);
            ip("netns", "add", namespaceB);
            ip("link", "add", vethA, "type", "veth", "peer", "name", vethB);
            ip("link", "set", vethA, "netns", namespaceA);
            ip("link", "set", vethB, "netns", namespaceB);
            configure(namespaceA, vethA, addressA);
            configure(namespaceB, vethB, addressB);
        }
        catch (final IOException | RuntimeException ex)
        {
            close();
            throw ex;
        }
    }

    /** The command prefix that runs a command in host A ({@code true}) or B. */
    List<String> prefix(final boolean hostA)
    {
        return List.of("ip", "netns", "exec", hostA ? namespaceA : namespaceB);
    }

    String addressA()
    {
        return addressA;
    }

    String addressB()
    {
        return addressB;
    }

    String vethA()
    {
        return vethA;
    }

    String vethB()
    {
        return vethB;
    }

    /** The Ip: counters of /proc/net/snmp as host A ({@code true}) or B sees them (FragCreates, ReasmReqds, ...). */
    Map<String, Long> ipCounters(final boolean hostA) throws IOException, InterruptedException
    {
        final List<String> ipLines = new ArrayList<>();
        for (final String line : exec(hostA, "cat", "/proc/net/snmp").split("\n"))
        {
            if (line.startsWith("Ip: "))
            {
                ipLines.add(line);
            }
        }
        if (ipLines.size() != 2)
        {
            throw new IOException("unexpected /proc/net/snmp: " + ipLines);
        }
        final String[] names = ipLines.get(0).substring(4).trim().split("\\s+");
        final String[] values = ipLines.get(1).substring(4).trim().split("\\s+");
        final Map<String, Long> counters = new HashMap<>();
        for (int i = 0; i < names.length; i++)
        {
            counters.put(names[i], Long.parseLong(values[i]));
        }
        return counters;
    }

    /** One counter of a host's veth end (rx_packets, rx_bytes, tx_packets, rx_dropped, ...) from sysfs. */
    long linkCounter(final boolean hostA, final String counter) throws IOException, InterruptedException
    {
        return Long.parseLong(exec(hostA, "cat",
            "/sys/class/net/" + (hostA ? vethA : vethB) + "/statistics/" + counter).trim());
    }

    /** The MTU of a host's veth end as the kernel has it. */
    int linkMtu(final boolean hostA) throws IOException, InterruptedException
    {
        return Integer.parseInt(exec(hostA, "cat", "/sys/class/net/" + (hostA ? vethA : vethB) + "/mtu").trim());
    }

    /** Run a command in a host and return its output; fails on a non-zero exit. */
    String exec(final boolean hostA, final String... command) throws IOException, InterruptedException
    {
        final List<String> full = new ArrayList<>(prefix(hostA));
        full.addAll(List.of(command));
        return run(full);
    }

    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        deleteNamespaces();
        try
        {
            Runtime.getRuntime().removeShutdownHook(cleanupHook);
        }
        catch (final IllegalStateException | NullPointerException ex)
        {
            // already shutting down (the hook runs or ran), or it was never registered
        }
    }

    private void configure(final String namespace, final String veth, final String address)
        throws IOException, InterruptedException
    {
        ip("-n", namespace, "link", "set", "lo", "up");
        ip("-n", namespace, "addr", "add", address + "/24", "dev", veth);
        ip("-n", namespace, "link", "set", veth, "mtu", Integer.toString(LINK_MTU), "multicast", "on", "up");
        ip("-n", namespace, "route", "add", "224.0.0.0/4", "dev", veth);
    }

    /** Both namespaces (their veth ends go with them) and the pair itself if it never left this namespace. */
    private void deleteNamespaces()
    {
        for (final List<String> command : List.of(
            List.of("ip", "netns", "del", namespaceA),
            List.of("ip", "netns", "del", namespaceB),
            List.of("ip", "link", "del", vethA)))
        {
            try
            {
                new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(10, TimeUnit.SECONDS);
            }
            catch (final IOException | InterruptedException ex)
            {
                System.err.println("two hosts: " + String.join(" ", command) + ": " + ex);
            }
        }
    }

    /** Namespaces of an earlier run of this test whose JVM is gone (killed before it could clean up). */
    private static void removeStale() throws IOException, InterruptedException
    {
        for (final String line : run(List.of("ip", "netns", "list")).split("\n"))
        {
            final String name = line.trim().split("\\s+")[0];
            final Matcher own = OWN_NAME.matcher(name);
            if (own.matches() && ProcessHandle.of(Long.parseLong(own.group(1))).isEmpty())
            {
                run(List.of("ip", "netns", "del", name));
            }
        }
    }

    private static void requireNamespaces() throws IOException, InterruptedException
    {
        final String why;
        if (!"root".equals(System.getProperty("user.name")))
        {
            why = "it runs as " + System.getProperty("user.name") + ", not root";
        }
        else
        {
            String probe;
            try
            {
                run(List.of("ip", "netns", "list"));
                probe = null;
            }
            catch (final IOException ex)
            {
                probe = ex.getMessage();
            }
            why = probe;
        }
        if (null != why)
        {
            throw new IOException("the two-hosts test needs root and 'ip netns' (iproute2) to make network " +
                "namespaces, and cannot here: " + why + " (as root: apt-get install iproute2)");
        }
    }

    private static void ip(final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>();
        command.add("ip");
        command.addAll(List.of(args));
        run(command);
    }

    private static String run(final List<String> command) throws IOException, InterruptedException
    {
        final Process process;
        try
        {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        }
        catch (final IOException ex)
        {
            throw new IOException(String.join(" ", command) + ": " + ex.getMessage(), ex);
        }
        final byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(30, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            throw new IOException(String.join(" ", command) + ": did not finish");
        }
        final String text = new String(output, StandardCharsets.UTF_8);
        if (process.exitValue() != 0)
        {
            throw new IOException(String.join(" ", command) + ": exit " + process.exitValue() + ": " + text.trim());
        }
        return text;
    }
}
