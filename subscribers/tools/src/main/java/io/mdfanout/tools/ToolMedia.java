package io.mdfanout.tools;

import io.aeron.Aeron;
import io.aeron.CncFileDescriptor;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.driver.status.SystemCounterDescriptor;
import org.agrona.CloseHelper;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.util.concurrent.TimeUnit;

/**
 * The Aeron client of a tool, connected either to an external media driver (--aeron-dir) or to an
 * embedded one launched here: shared threading with the tool's idle strategy ({@link IdleOptions}, the same
 * as its poll thread's), 2 MiB socket buffers and receiver window, and a private temporary directory deleted
 * on close.
 */
public final class ToolMedia implements AutoCloseable
{
    private static final int SOCKET_BUFFER_LENGTH = 2 * 1024 * 1024;
    private static final long CLIENT_LIVENESS_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(30);
    private static final SystemCounterDescriptor[] SUMMARY_COUNTERS = {
        SystemCounterDescriptor.BYTES_RECEIVED,
        SystemCounterDescriptor.NAK_MESSAGES_SENT,
        SystemCounterDescriptor.LOSS_GAP_FILLS,
        SystemCounterDescriptor.FLOW_CONTROL_OVER_RUNS,
        SystemCounterDescriptor.ERRORS,
    };

    private final MediaDriver driver;
    private final Aeron aeron;
    private final AgentInvoker driverInvoker;
    private final AgentInvoker clientInvoker;

    private ToolMedia(final MediaDriver driver, final Aeron aeron)
    {
        this.driver = driver;
        this.aeron = aeron;
        this.driverInvoker = null == driver ? null : driver.sharedAgentInvoker();
        this.clientInvoker = aeron.conductorAgentInvoker();
    }

    /**
     * The idle strategy of the tool's poll loop. With an embedded driver in invoker mode it first runs
     * one duty cycle of the driver and of the Aeron client's conductor on the calling thread, so that
     * the tool is one busy thread, not two (and no client conductor thread).
     *
     * @param idle what the loop does when neither the poll nor the driver found work.
     * @return {@code idle} itself, or one that invokes the driver before it.
     */
    public IdleStrategy pollIdle(final IdleStrategy idle)
    {
        return null == driverInvoker ? idle : new DriverInvokingIdleStrategy(driverInvoker, clientInvoker, idle);
    }

    /**
     * Connect as the options say, an embedded driver idling with the default {@link IdleOptions}.
     *
     * @param aeronDir directory of an external driver, or null to launch an embedded one.
     * @return the connected media.
     * @throws IllegalArgumentException when the external driver directory does not exist.
     */
    public static ToolMedia connect(final String aeronDir)
    {
        return connect(aeronDir, new IdleOptions());
    }

    /**
     * Connect as the options say.
     *
     * @param aeronDir    directory of an external driver, or null to launch an embedded one.
     * @param idleOptions idle strategy of the embedded driver's thread (not used with an external driver).
     * @return the connected media.
     * @throws IllegalArgumentException when the external driver directory does not exist or the idle options are
     *                                  invalid.
     */
    public static ToolMedia connect(final String aeronDir, final IdleOptions idleOptions)
    {
        return connect(aeronDir, idleOptions, false);
    }

    /**
     * Connect as the options say, the client touching the logs it maps as it maps them, or not.
     *
     * @param aeronDir     directory of an external driver, or null to launch an embedded one.
     * @param idleOptions  idle strategy of the embedded driver's thread (not used with an external driver).
     * @param preTouchLogs whether the client touches every page of a log when it maps it (Aeron's
     *                     {@code preTouchMappedMemory}): for a publisher whose log is not sparse, as the
     *                     fanout's are, so that no page fault lands on its sends; a subscriber leaves it off,
     *                     so that joining does not wait for whole logs to be touched.
     * @return the connected media.
     * @throws IllegalArgumentException when the external driver directory does not exist or the idle options are
     *                                  invalid.
     */
    public static ToolMedia connect(final String aeronDir, final IdleOptions idleOptions, final boolean preTouchLogs)
    {
        if (null != aeronDir)
        {
            final File cncFile = new File(aeronDir, CncFileDescriptor.CNC_FILE);
            if (!cncFile.isFile())
            {
                throw new IllegalArgumentException("no media driver at --aeron-dir " + aeronDir + " (" + cncFile +
                    " not found)");
            }
            return new ToolMedia(null, Aeron.connect(
                new Aeron.Context().aeronDirectoryName(aeronDir).preTouchMappedMemory(preTouchLogs)));
        }

        final String dir = new File(System.getProperty("java.io.tmpdir"),
            "mdfanout-tools-" + ProcessHandle.current().pid() + "-" + System.nanoTime()).getAbsolutePath();
        final boolean invoker = idleOptions.driverInvoker();
        final MediaDriver driver = MediaDriver.launch(new MediaDriver.Context()
            .aeronDirectoryName(dir)
            .threadingMode(invoker ? ThreadingMode.INVOKER : ThreadingMode.SHARED)
            .sharedIdleStrategy(idleOptions.newIdleStrategy())
            .socketRcvbufLength(SOCKET_BUFFER_LENGTH)
            .socketSndbufLength(SOCKET_BUFFER_LENGTH)
            .initialWindowLength(SOCKET_BUFFER_LENGTH)
            // A subscriber stopped for a while (a debugger, SIGSTOP, a long GC) must come back with
            // its Aeron client alive and recover through the snapshots, not lose the client after
            // Aeron's default 10 s. The driver serves this one process only, so holding a dead
            // client's resources longer costs nothing.
            .clientLivenessTimeoutNs(CLIENT_LIVENESS_TIMEOUT_NS)
            .publicationUnblockTimeoutNs(2 * CLIENT_LIVENESS_TIMEOUT_NS)
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true));
        try
        {
            return new ToolMedia(driver, Aeron.connect(new Aeron.Context()
                .aeronDirectoryName(dir)
                .preTouchMappedMemory(preTouchLogs)
                // In invoker mode the poll thread runs the client's conductor too, and a blocking client call
                // runs the driver itself while it waits.
                .useConductorAgentInvoker(invoker)
                .driverAgentInvoker(driver.sharedAgentInvoker())
                .driverTimeoutMs(TimeUnit.NANOSECONDS.toMillis(CLIENT_LIVENESS_TIMEOUT_NS))));
        }
        catch (final RuntimeException ex)
        {
            driver.close();
            throw ex;
        }
    }

    /** @return the Aeron client. */
    public Aeron aeron()
    {
        return aeron;
    }

    /**
     * The media driver's own view of the transport, from its system counters: bytes received, NAKs
     * sent (frames lost on the way and asked for again), loss gap fills (lost for good), receiver
     * window over-runs and errors. One line, for a tool's exit summary.
     *
     * @return {@code media driver: bytesReceived=.. naksSent=.. lossGapFills=.. flowControlOverRuns=.. errors=..}
     */
    public String driverSummary()
    {
        final long[] values = new long[SUMMARY_COUNTERS.length];
        final CountersReader counters = aeron.countersReader();
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (SystemCounterDescriptor.SYSTEM_COUNTER_TYPE_ID == typeId)
            {
                final int descriptorId = keyBuffer.getInt(0);
                for (int i = 0; i < SUMMARY_COUNTERS.length; i++)
                {
                    if (SUMMARY_COUNTERS[i].id() == descriptorId)
                    {
                        values[i] = counters.getCounterValue(counterId);
                    }
                }
            }
        });
        return "media driver: bytesReceived=" + values[0] + " naksSent=" + values[1] + " lossGapFills=" + values[2] +
            " flowControlOverRuns=" + values[3] + " errors=" + values[4];
    }

    /** Close the client and, when embedded, the driver (which deletes its directory). */
    public void close()
    {
        CloseHelper.closeAll(aeron, driver);
    }
}
