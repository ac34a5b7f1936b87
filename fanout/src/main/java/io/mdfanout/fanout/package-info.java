/**
 * The fanout: drains the feed handler's partition ring buffers, packs normalized SBE messages
 * into packets (one Aeron frame each) and publishes them on one Aeron stream per partition,
 * with heartbeats when idle and explicit, counted back pressure.
 * <p>
 * Entry points: {@link io.mdfanout.fanout.Fanout} (programmatic, from a
 * {@link io.mdfanout.fanout.FanoutConfig}), {@link io.mdfanout.fanout.FanoutCommand} (the
 * {@code fanout} CLI subcommand), and {@link io.mdfanout.fanout.PartitionPublisher} (the
 * per-partition agent, usable on its own).
 */
package io.mdfanout.fanout;
