package io.mdfanout.cli;

import io.mdfanout.archive.ArchiveCommand;
import io.mdfanout.fanout.FanoutCommand;
import io.mdfanout.fanout.MediaDriverCommand;
import io.mdfanout.feed.handler.FeedHandlerCommand;
import io.mdfanout.feed.replay.ReplayCommand;
import io.mdfanout.feed.sim.SimulatorCommand;
import io.mdfanout.tools.BookCommand;
import io.mdfanout.tools.CheckCommand;
import io.mdfanout.tools.ErrorStatCommand;
import io.mdfanout.tools.ExportCommand;
import io.mdfanout.tools.LatencyCommand;
import io.mdfanout.tools.HostJitterCommand;
import io.mdfanout.tools.RawAeronPubCommand;
import io.mdfanout.tools.RawAeronRelayCommand;
import io.mdfanout.tools.RawAeronSubCommand;
import io.mdfanout.tools.RecordCommand;
import io.mdfanout.tools.StatsCommand;
import io.mdfanout.tools.TailCommand;
import io.mdfanout.wire.BuildInfo;
import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.StopSignals;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The single entry point of the distribution and of the container image: every role is a
 * subcommand, so one image and one launcher serve the feed handler, the fanout, the simulator
 * and the subscriber tools.
 */
@Command(
    name = "mdfanout",
    // Inherited by every role: the same --help and --version (naming the role, the version and the git
    // revision) and the same exit code table in every role's help.
    scope = CommandLine.ScopeType.INHERIT,
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    exitCodeListHeading = "%nExit codes (the same for every role, docs/OPERATIONS.md):%n",
    exitCodeList = {
        ExitCodes.HELP_OK,
        ExitCodes.HELP_FAILURE,
        ExitCodes.HELP_USAGE,
        ExitCodes.HELP_CONFIG,
        ExitCodes.HELP_DATA_LOSS,
        ExitCodes.HELP_TIMEOUT
    },
    description = "ITCH 5.0 feed handler, Aeron multicast fan-out and subscriber tools.",
    subcommands = {
        SimulatorCommand.class,
        FeedHandlerCommand.class,
        ReplayCommand.class,
        FanoutCommand.class,
        MediaDriverCommand.class,
        ArchiveCommand.class,
        TailCommand.class,
        BookCommand.class,
        CheckCommand.class,
        StatsCommand.class,
        RecordCommand.class,
        ExportCommand.class,
        LatencyCommand.class,
        RawAeronPubCommand.class,
        RawAeronRelayCommand.class,
        HostJitterCommand.class,
        RawAeronSubCommand.class,
        ErrorStatCommand.class,
        AutoComplete.GenerateCompletion.class,
        CommandLine.HelpCommand.class
    })
public final class Main implements Runnable
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(final String[] args)
    {
        // First: SIGTERM/SIGINT then stop the role, which exits with its own code (0), even one still starting.
        StopSignals.install();
        int exitCode = ExitCodes.FAILURE;
        try
        {
            exitCode = execute(args);
        }
        catch (final Throwable ex)
        {
            // An Error out of a role (picocli handles exceptions only) must still end the JVM: the role's Aeron
            // threads are not daemons and would keep a process with no main thread alive, answering nothing.
            System.err.println("error: " + ex);
            ex.printStackTrace();
        }
        finally
        {
            System.exit(exitCode);
        }
    }

    /** Run the CLI and return its exit code (tests call this rather than main). */
    public static int execute(final String... args)
    {
        final CommandLine commandLine = new CommandLine(new Main());
        for (final CommandLine role : commandLine.getSubcommands().values())
        {
            role.getCommandSpec().versionProvider(new Version(role.getCommandName()));
        }
        commandLine.setExecutionExceptionHandler((ex, cmd, parseResult) ->
        {
            // Configuration and start-up failures are reported in one line; the stack trace is
            // only noise to an operator reading a pod's log.
            cmd.getErr().println(cmd.getColorScheme().errorText("error: " + describe(ex)));
            return ExitCodes.of(ex);
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

    /**
     * {@code mdfanout <role> <version> (git <revision>)}: the version and revision the build stamped
     * ({@link BuildInfo}), for whichever role was asked.
     */
    public static final class Version implements CommandLine.IVersionProvider
    {
        private final String role;

        /** The version of the entry point itself ({@code mdfanout --version}). */
        public Version()
        {
            this(null);
        }

        /**
         * @param role the role whose version it is, or null for the entry point.
         */
        public Version(final String role)
        {
            this.role = role;
        }

        /** {@inheritDoc} */
        public String[] getVersion()
        {
            return new String[] {line(role)};
        }

        /**
         * @param role the role, or null.
         * @return {@code mdfanout [role] <version> (git <revision>)}.
         */
        public static String line(final String role)
        {
            return "mdfanout" + (null == role ? "" : " " + role) + " " + BuildInfo.version() +
                " (git " + BuildInfo.revision() + ")";
        }
    }
}
