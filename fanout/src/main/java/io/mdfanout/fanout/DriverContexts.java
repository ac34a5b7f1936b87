package io.mdfanout.fanout;

import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.mdfanout.wire.IdleStrategyType;
import org.agrona.ErrorHandler;

import java.util.concurrent.ThreadFactory;
import java.util.function.Function;

/**
 * The media driver settings of the fanout's embedded driver and of the standalone
 * {@code media-driver} role, in one place: the role's idle strategy and maximum park on every driver
 * agent (the same as its own threads', so the driver adds no longer park to a message's path than
 * the publishers do; busy-spinning belongs to pinned cores, which the thread factories provide),
 * 2 MiB socket buffers and receiver window, and the configured term length. (The fanout's own
 * publications are not sparse: {@code Fanout} asks for that on their channels, so that a receiving
 * driver here keeps Aeron's sparse images and a late joiner is not slowed by touching whole logs.)
 */
final class DriverContexts
{
    private DriverContexts()
    {
    }

    /**
     * A driver context for a directory, threading mode and term length.
     *
     * @param directory    the driver's directory; deleted at start (a crashed predecessor's) and at close.
     * @param mode         shared, shared-network or dedicated.
     * @param termLength   default term length of publications.
     * @param errorHandler told of the driver's errors.
     * @param idleStrategy  what each driver agent does when idle.
     * @param maxParkNs     longest park of the idle strategy.
     * @return the context, ready to launch once thread factories are applied.
     */
    static MediaDriver.Context newContext(
        final String directory,
        final ThreadingMode mode,
        final int termLength,
        final ErrorHandler errorHandler,
        final IdleStrategyType idleStrategy,
        final long maxParkNs)
    {
        return new MediaDriver.Context()
            .aeronDirectoryName(directory)
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .threadingMode(mode)
            .sharedIdleStrategy(idleStrategy.newIdleStrategy(maxParkNs))
            .sharedNetworkIdleStrategy(idleStrategy.newIdleStrategy(maxParkNs))
            .conductorIdleStrategy(idleStrategy.newIdleStrategy(maxParkNs))
            .senderIdleStrategy(idleStrategy.newIdleStrategy(maxParkNs))
            .receiverIdleStrategy(idleStrategy.newIdleStrategy(maxParkNs))
            .socketSndbufLength(FanoutConfig.EMBEDDED_DRIVER_SOCKET_BUFFER_LENGTH)
            .socketRcvbufLength(FanoutConfig.EMBEDDED_DRIVER_SOCKET_BUFFER_LENGTH)
            .initialWindowLength(FanoutConfig.EMBEDDED_DRIVER_RECEIVER_WINDOW_LENGTH)
            .publicationTermBufferLength(termLength)
            .ipcTermBufferLength(termLength)
            .errorHandler(errorHandler);
    }

    /**
     * Run each of the driver's agents on a thread from the factory named after it, so that each
     * busy thread pins itself when the affinity plan says so.
     *
     * @param context        the driver context.
     * @param mode           the threading mode the context was made with.
     * @param threadFactories factory for a busy thread's name (Fanout.DRIVER_*_THREAD).
     */
    static void applyThreadFactories(
        final MediaDriver.Context context, final ThreadingMode mode, final Function<String, ThreadFactory> threadFactories)
    {
        switch (mode)
        {
            case DEDICATED -> context
                .conductorThreadFactory(threadFactories.apply(Fanout.DRIVER_CONDUCTOR_THREAD))
                .senderThreadFactory(threadFactories.apply(Fanout.DRIVER_SENDER_THREAD))
                .receiverThreadFactory(threadFactories.apply(Fanout.DRIVER_RECEIVER_THREAD));
            case SHARED_NETWORK -> context
                .conductorThreadFactory(threadFactories.apply(Fanout.DRIVER_CONDUCTOR_THREAD))
                .sharedNetworkThreadFactory(threadFactories.apply(Fanout.DRIVER_NETWORK_THREAD));
            default -> context.sharedThreadFactory(threadFactories.apply(Fanout.DRIVER_SHARED_THREAD));
        }
    }
}
