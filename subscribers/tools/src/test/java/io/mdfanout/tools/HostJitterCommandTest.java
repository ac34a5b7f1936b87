package io.mdfanout.tools;

import io.mdfanout.wire.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostJitterCommandTest
{
    /**
     * Twice as many spinning threads as the process has CPUs: the scheduler takes each thread's CPU away for about
     * half the time, in slices of milliseconds. The measurement must see that, not a quiet host.
     */
    @Test
    void anOversubscribedHostShowsAsTimeInGaps(@TempDir final Path dir) throws Exception
    {
        final int threads = 2 * Runtime.getRuntime().availableProcessors();
        final Path json = dir.resolve("jitter.json");
        final HostJitterCommand command = new HostJitterCommand();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        command.stdout = new PrintStream(out, true, StandardCharsets.UTF_8);
        assertEquals(0, new CommandLine(command).execute("--seconds", "1", "--threads", Integer.toString(threads),
            "--json-out", json.toString()));

        final String report = Files.readString(json);
        assertTrue(report.contains("\"threads\":" + threads + ","), report);
        final Matcher worst = Pattern.compile("\"worst\":\\{\"max_gap_us\":([0-9.]+),\"time_share_over_us\":\\{\"1\":" +
            "([0-9.]+),").matcher(report);
        assertTrue(worst.find(), report);
        assertTrue(Double.parseDouble(worst.group(1)) >= 1_000, "a preempted thread waits a slice: " + report);
        assertTrue(Double.parseDouble(worst.group(2)) > 0.2, "about half the time in gaps: " + report);
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("host-jitter: " + threads + " threads"),
            out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void badOptionsAreRefused()
    {
        final HostJitterCommand command = new HostJitterCommand();
        command.stderr = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertEquals(ExitCodes.CONFIG, new CommandLine(command).execute("--seconds", "0"));
    }

    @Test
    void cpuListsAsTheKernelWritesThem()
    {
        final BitSet cpus = CpuStat.parse("0-2,5, 7-8");
        assertEquals("{0, 1, 2, 5, 7, 8}", cpus.toString());
        final long[] stat = CpuStat.stealAndTotal(CpuStat.allowedCpus());
        assertTrue(stat[1] > 0 && stat[0] >= 0 && stat[0] <= stat[1], "ticks of this process's CPUs since boot");
    }
}
