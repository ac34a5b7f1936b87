package io.mdfanout.tools;

import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.RoleErrorLog;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code mdfanout error-stat FILE...}: print the distinct errors a role recorded in its error log
 * ({@link RoleErrorLog}, {@code <role>-<pid>-errors.dat}), each with its count, first and last observation and stack
 * trace, as Aeron's {@code ErrorStat} prints a media driver's. The file stays readable after the role died, so this
 * is what to run after a crash.
 */
@Command(name = "error-stat", mixinStandardHelpOptions = true,
    description = "Print the distinct errors (count, first and last time, stack trace) of a role's error log file " +
        "<role>-<pid>-errors.dat: in the ring directory (feed-handler, replay), the fanout's state directory, or " +
        "java.io.tmpdir (simulator, tools). Readable after the role died.")
public final class ErrorStatCommand implements Callable<Integer>
{
    @Parameters(arity = "1..*", paramLabel = "FILE", description = "Error log file(s).")
    List<Path> files;

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    /**
     * Print each file.
     *
     * @return 0 when every file was read, 3 (configuration: a missing or unreadable file) when one could not be.
     */
    public Integer call()
    {
        int exitCode = ExitCodes.OK;
        for (final Path file : files)
        {
            try
            {
                if (files.size() > 1)
                {
                    stdout.println("== " + file);
                }
                RoleErrorLog.read(file, stdout);
            }
            catch (final RuntimeException ex)
            {
                stderr.println("error-stat: " + file + ": " + ex.getMessage());
                exitCode = ExitCodes.CONFIG;
            }
        }
        return exitCode;
    }

    /**
     * Run the command on its own, outside the {@code mdfanout} entry point.
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new ErrorStatCommand()).execute(args));
    }
}
