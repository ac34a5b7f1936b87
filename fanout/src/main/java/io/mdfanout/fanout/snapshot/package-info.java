/**
 * Periodic full snapshots of a partition's state on the partition's snapshot stream, captured whole
 * instrument by whole instrument between ring drains and spread over duty cycles.
 */
package io.mdfanout.fanout.snapshot;
