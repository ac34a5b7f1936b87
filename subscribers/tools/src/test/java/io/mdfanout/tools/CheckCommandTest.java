package io.mdfanout.tools;

import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.mdfanout.wire.ExitCodes;
import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The check command's failing side, in-process over a real media driver: with no feed on the channel it fails
 * (exit 4, data loss) and says why, and wrong option values are configuration errors (exit 3). Its passing side
 * runs in the node test, as the chart's helm test against the real chain.
 */
class CheckCommandTest
{
    private static final String CHANNEL = "aeron:udp?endpoint=224.0.1.45:42503|interface=127.0.0.1";

    private static MediaDriver driver;

    @BeforeAll
    static void start()
    {
        driver = MediaDriver.launch(new MediaDriver.Context()
            .aeronDirectoryName(new java.io.File(System.getProperty("java.io.tmpdir"),
                "mdfanout-check-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime()).getAbsolutePath())
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy(10, 20, 1_000, 1_000_000))
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true));
    }

    @AfterAll
    static void stop()
    {
        CloseHelper.close(driver);
    }

    @Test
    void aFeedThatNeverBecomesLiveFailsSayingSo()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final CheckCommand command = new CheckCommand();
        command.stdout = new PrintStream(out, true, StandardCharsets.UTF_8);
        final int exit = new CommandLine(command).execute("--aeron-dir", driver.aeronDirectoryName(),
            "--channel", CHANNEL, "--stream-id-base", "1700", "--partitions", "2", "--join-timeout-s", "1",
            "--duration-s", "1");
        final String printed = out.toString(StandardCharsets.UTF_8);
        assertEquals(ExitCodes.DATA_LOSS, exit, printed);
        assertTrue(printed.startsWith("check: FAILED: not every partition became live within 1 s " +
            "(partition 0 0 messages, partition 1 0 messages)"), printed);
    }

    @Test
    void aPairThatNeverBecomesLiveFailsSayingWhatEachSideDelivered()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final CheckCommand command = new CheckCommand();
        command.stdout = new PrintStream(out, true, StandardCharsets.UTF_8);
        final int exit = new CommandLine(command).execute("--aeron-dir", driver.aeronDirectoryName(),
            "--channel", CHANNEL, "--pair-channel", "aeron:udp?endpoint=224.0.1.47:42503|interface=127.0.0.1",
            "--stream-id-base", "1710", "--partitions", "1", "--join-timeout-s", "1", "--duration-s", "1");
        final String printed = out.toString(StandardCharsets.UTF_8);
        assertEquals(ExitCodes.DATA_LOSS, exit, printed);
        assertTrue(printed.startsWith("check: FAILED: not every partition became live within 1 s " +
            "(partition 0 0 messages; sides (delivered first/duplicates/refused/mismatched copies) " +
            "A=0/0/0/0 B=0/0/0/0)"), printed);
    }

    @Test
    void wrongOptionValuesAreConfigurationErrors()
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final CheckCommand command = new CheckCommand();
        command.stderr = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(ExitCodes.CONFIG, new CommandLine(command).execute("--duration-s", "0"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--duration-s and --join-timeout-s must be positive"),
            err.toString(StandardCharsets.UTF_8));
    }
}
