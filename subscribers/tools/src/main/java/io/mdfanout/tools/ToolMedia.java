package io.mdfanout.tools;

import io.aeron.Aeron;
import io.aeron.CncFileDescriptor;
import io.aeron.CommonContext;
import io.aeron.driver.Configuration;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.aeron.driver.status.SystemCounterDescriptor;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;
import org.agrona.SystemUtil;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The Aeron client of a tool, connected either to an external media driver (--aeron-dir) or to an
 * embedded one launched here: shared threading with the tool's idle strategy ({@link IdleOptions}, the same
 * as its poll thread's), 2 MiB socket buffers and receiver window, and a private temporary directory deleted
 * on close; one left by a tool that died without closing is deleted by the next tool that starts an embedded driver
 * ({@link #reclaimLeftovers(File)}).
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

    /** Name of an embedded driver's directory: this prefix, the tool's pid, '-', a nano time. */
    static final String EMBEDDED_DIR_PREFIX = "mdfanout-tools-";
    /** A driver whose heartbeat is older than this is not running (Aeron's default driver timeout). */
    private static final long DRIVER_TIMEOUT_MS = 10_000;

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

        final File parent = new File(System.getProperty("java.io.tmpdir"));
        reclaimLeftovers(parent);
        final String dir = new File(parent,
            EMBEDDED_DIR_PREFIX + ProcessHandle.current().pid() + "-" + System.nanoTime()).getAbsolutePath();
        final boolean invoker = idleOptions.driverInvoker();
        final MediaDriver driver = MediaDriver.launch(new MediaDriver.Context()
            .aeronDirectoryName(dir)
            .threadingMode(invoker ? ThreadingMode.INVOKER : ThreadingMode.SHARED)
            .sharedIdleStrategy(idleOptions.newIdleStrategy())
            // Aeron's own properties, where given, win over the 2 MiB: an operator's choice, or a benchmark's lever.
            .socketRcvbufLength(SystemUtil.getSizeAsInt(Configuration.SOCKET_RCVBUF_LENGTH_PROP_NAME,
                SOCKET_BUFFER_LENGTH))
            .socketSndbufLength(SOCKET_BUFFER_LENGTH)
            .initialWindowLength(SystemUtil.getSizeAsInt(Configuration.INITIAL_WINDOW_LENGTH_PROP_NAME,
                SOCKET_BUFFER_LENGTH))
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

    /**
     * Delete the embedded driver directories of tools that died without cleaning up ({@code kill -9}, an OOM kill:
     * some 50 MiB each, a CnC file and the logs of the images it received): those named for a process that no
     * longer runs and whose driver's heartbeat stopped. Another tool's running driver (its process alive, or its
     * heartbeat fresh, as in another pid namespace sharing the directory) is left alone; so is anything not named
     * as this project names them.
     *
     * @param parent where the tools make their directories ({@code java.io.tmpdir}).
     * @return the directories deleted.
     */
    static List<File> reclaimLeftovers(final File parent)
    {
        final List<File> reclaimed = new ArrayList<>();
        final File[] candidates = parent.listFiles((dir, name) -> name.startsWith(EMBEDDED_DIR_PREFIX));
        if (null == candidates)
        {
            return reclaimed;
        }
        for (final File candidate : candidates)
        {
            final long pid = ownerPid(candidate.getName());
            if (pid <= 0 || pid == ProcessHandle.current().pid() || ProcessHandle.of(pid).isPresent() ||
                !candidate.isDirectory() || isDriverActive(candidate))
            {
                continue;
            }
            IoUtil.delete(candidate, true);
            if (!candidate.exists())
            {
                reclaimed.add(candidate);
            }
        }
        return reclaimed;
    }

    /** The pid in {@code mdfanout-tools-<pid>-<nanos>}, or -1. */
    static long ownerPid(final String name)
    {
        final int end = name.indexOf('-', EMBEDDED_DIR_PREFIX.length());
        if (end <= EMBEDDED_DIR_PREFIX.length())
        {
            return -1;
        }
        try
        {
            return Long.parseLong(name.substring(EMBEDDED_DIR_PREFIX.length(), end));
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    private static boolean isDriverActive(final File dir)
    {
        try
        {
            return CommonContext.isDriverActive(dir, DRIVER_TIMEOUT_MS, (message) -> {});
        }
        catch (final RuntimeException ex)
        {
            return false; // a CnC file never initialised (killed while starting) or of another Aeron: no driver
        }
    }

    /** @return the Aeron client. */
    public Aeron aeron()
    {
        return aeron;
    }

    /** @return the embedded media driver's context, or null with an external driver. */
    MediaDriver.Context driverContext()
    {
        return null == driver ? null : driver.context();
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
