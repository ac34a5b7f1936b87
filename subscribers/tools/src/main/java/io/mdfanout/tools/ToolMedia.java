package io.mdfanout.tools;

import io.aeron.Aeron;
import io.aeron.CncFileDescriptor;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.io.File;
import java.util.concurrent.TimeUnit;

/**
 * The Aeron client of a tool, connected either to an external media driver (--aeron-dir) or to an
 * embedded one launched here: shared threading with a backing-off idle strategy, 2 MiB socket
 * buffers and receiver window, and a private temporary directory deleted on close.
 */
public final class ToolMedia implements AutoCloseable
{
    private static final int SOCKET_BUFFER_LENGTH = 2 * 1024 * 1024;

    private final MediaDriver driver;
    private final Aeron aeron;

    private ToolMedia(final MediaDriver driver, final Aeron aeron)
    {
        this.driver = driver;
        this.aeron = aeron;
    }

    /**
     * Connect as the options say.
     *
     * @param aeronDir directory of an external driver, or null to launch an embedded one.
     * @return the connected media.
     * @throws IllegalArgumentException when the external driver directory does not exist.
     */
    public static ToolMedia connect(final String aeronDir)
    {
        if (null != aeronDir)
        {
            final File cncFile = new File(aeronDir, CncFileDescriptor.CNC_FILE);
            if (!cncFile.isFile())
            {
                throw new IllegalArgumentException("no media driver at --aeron-dir " + aeronDir + " (" + cncFile +
                    " not found)");
            }
            return new ToolMedia(null, Aeron.connect(new Aeron.Context().aeronDirectoryName(aeronDir)));
        }

        final String dir = new File(System.getProperty("java.io.tmpdir"),
            "mdfanout-tools-" + ProcessHandle.current().pid() + "-" + System.nanoTime()).getAbsolutePath();
        final MediaDriver driver = MediaDriver.launch(new MediaDriver.Context()
            .aeronDirectoryName(dir)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy(
                10, 20, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(1)))
            .socketRcvbufLength(SOCKET_BUFFER_LENGTH)
            .socketSndbufLength(SOCKET_BUFFER_LENGTH)
            .initialWindowLength(SOCKET_BUFFER_LENGTH)
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true));
        try
        {
            return new ToolMedia(driver, Aeron.connect(new Aeron.Context().aeronDirectoryName(dir)));
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

    /** Close the client and, when embedded, the driver (which deletes its directory). */
    public void close()
    {
        CloseHelper.closeAll(aeron, driver);
    }
}
