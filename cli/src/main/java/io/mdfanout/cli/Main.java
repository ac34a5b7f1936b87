package io.mdfanout.cli;

import io.mdfanout.fanout.FanoutCommand;
import io.mdfanout.fanout.MediaDriverCommand;
import io.mdfanout.feed.handler.FeedHandlerCommand;
import io.mdfanout.feed.replay.ReplayCommand;
import io.mdfanout.feed.sim.SimulatorCommand;
import io.mdfanout.tools.BookCommand;
import io.mdfanout.tools.CheckCommand;
import io.mdfanout.tools.LatencyCommand;
import io.mdfanout.tools.RawAeronPubCommand;
import io.mdfanout.tools.RawAeronSubCommand;
import io.mdfanout.tools.RecordCommand;
import io.mdfanout.tools.StatsCommand;
import io.mdfanout.tools.TailCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The single entry point of the distribution and of the container image: every role is a
 * subcommand, so one image and one launcher serve the feed handler, the fanout, the simulator
 * and the subscriber tools.
 */
@Command(
    name = "mdfanout",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "ITCH 5.0 feed handler, Aeron multicast fan-out and subscriber tools.",
    subcommands = {
        SimulatorCommand.class,
        FeedHandlerCommand.class,
        ReplayCommand.class,
        FanoutCommand.class,
        MediaDriverCommand.class,
        TailCommand.class,
        BookCommand.class,
        CheckCommand.class,
        StatsCommand.class,
        RecordCommand.class,
        LatencyCommand.class,
        RawAeronPubCommand.class,
        RawAeronSubCommand.class,
        CommandLine.HelpCommand.class
    })
public final class Main implements Runnable
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(final String[] args)
    {
        System.exit(execute(args));
    }

    /** Run the CLI and return its exit code (tests call this rather than main). */
    public static int execute(final String... args)
    {
        final CommandLine commandLine = new CommandLine(new Main());
        commandLine.setExecutionExceptionHandler((ex, cmd, parseResult) ->
        {
            // Configuration and start-up failures are reported in one line; the stack trace is
            // only noise to an operator reading a pod's log.
            cmd.getErr().println(cmd.getColorScheme().errorText("error: " + describe(ex)));
            return 1;
        });
        return commandLine.execute(args);
    }

    public void run()
    {
        spec.commandLine().usage(System.out);
    }

    private static String describe(final Throwable ex)
    {
        final StringBuilder text = new StringBuilder(String.valueOf(ex.getMessage()));
        for (Throwable cause = ex.getCause(); cause != null && cause != ex; cause = cause.getCause())
        {
            text.append(": ").append(cause.getMessage());
        }
        return text.toString();
    }

    /** Reports the version stamped into the jar manifest by the build. */
    public static final class Version implements CommandLine.IVersionProvider
    {
        public String[] getVersion()
        {
            final String version = Main.class.getPackage().getImplementationVersion();
            return new String[] {"mdfanout " + (version == null ? "development build" : version)};
        }
    }
}
