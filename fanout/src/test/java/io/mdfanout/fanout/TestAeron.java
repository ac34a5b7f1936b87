package io.mdfanout.fanout;

import io.aeron.Aeron;
import io.aeron.CommonContext;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.io.File;

/** An embedded media driver in a fresh directory (deleted on close) and a client connected to it. */
final class TestAeron implements AutoCloseable
{
    final MediaDriver driver;
    final Aeron aeron;

    TestAeron()
    {
        driver = MediaDriver.launchEmbedded(new MediaDriver.Context()
            .aeronDirectoryName(CommonContext.generateRandomDirName())
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true)
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy())
            .socketSndbufLength(2 * 1024 * 1024)
            .socketRcvbufLength(2 * 1024 * 1024)
            .initialWindowLength(2 * 1024 * 1024)
            .publicationTermBufferLength(1024 * 1024)
            .ipcTermBufferLength(64 * 1024));
        aeron = connect(driver.aeronDirectoryName());
    }

    static Aeron connect(final String aeronDirectoryName)
    {
        return Aeron.connect(new Aeron.Context().aeronDirectoryName(aeronDirectoryName));
    }

    String directory()
    {
        return driver.aeronDirectoryName();
    }

    boolean directoryExists()
    {
        return new File(driver.aeronDirectoryName()).exists();
    }

    public void close()
    {
        CloseHelper.closeAll(aeron, driver);
    }
}
