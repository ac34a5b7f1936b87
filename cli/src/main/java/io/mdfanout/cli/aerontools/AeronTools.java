package io.mdfanout.cli.aerontools;

import java.io.BufferedOutputStream;
import java.io.File;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The launcher behind the image's {@code aeron-stat}, {@code aeron-error-stat}, {@code aeron-loss-stat} and
 * {@code aeron-backlog-stat} commands: Aeron's own inspection tools ({@code io.aeron.samples.AeronStat},
 * {@code ErrorStat}, {@code LossStat}, {@code BacklogStat} from the shaded {@code aeron-all} jar) run against
 * the media driver directory given as the first argument, else {@code $AERON_DIR}.
 * <p>
 * Each command is a file whose first line is {@code #!/opt/java/openjdk/bin/java @/opt/aeron/aeron-tools.args}:
 * the kernel runs java with that argument file (small heap, {@code aeron-all.jar} and this class's jar on the
 * class path, never the application's {@code lib/}, which would meet the shaded copies of Agrona and Aeron) and
 * the command's own path, then the user's arguments. So the commands need no shell in the image (the runtime
 * base need not have one). This class uses nothing but the JDK; it reaches the tool by reflection.
 */
public final class AeronTools
{
    /** Where media drivers keep their directories. */
    static final String SHM = "/dev/shm";
    /** The file every media driver directory holds: the command-and-control file. */
    static final String CNC_FILE = "cnc.dat";

    /** Exit code of a command line that names no tool or no directory. */
    static final int USAGE = 2;
    /** Exit code of a failure: no media driver at the directory, the tool missing or failing. */
    static final int FAILED = 1;

    /** The four tools: command name, class in aeron-all, what it shows, its own arguments. */
    enum Tool
    {
        AERON_STAT("aeron-stat", "io.aeron.samples.AeronStat",
            "Every counter of the media driver and its clients (system counters such as Bytes sent,\n" +
            "NAKs received and Errors; positions and limits of each publication and image; channel status),\n" +
            "refreshed every second until Ctrl-C, or printed once with watch=false",
            "  watch=false        print once and exit (default true: refresh until Ctrl-C or SIGTERM)\n" +
            "  delay=SECONDS      refresh interval (default 1)\n" +
            "  type=REGEX         counter type id (0: the driver's system counters)\n" +
            "  identity=REGEX     system counter id, or registration id of a position counter\n" +
            "  session=REGEX      session id of position counters\n" +
            "  stream=REGEX       stream id of position counters\n" +
            "  channel=REGEX      channel of position and channel status counters\n"),
        ERROR_STAT("aeron-error-stat", "io.aeron.samples.ErrorStat",
            "The media driver's distinct errors, each with its count, first and last time, then the\n" +
            "number of distinct errors",
            ""),
        LOSS_STAT("aeron-loss-stat", "io.aeron.samples.LossStat",
            "The media driver's loss report: per stream (session, stream, channel, source) how often its\n" +
            "receiver gave up on lost data, how many bytes were lost, first and last time",
            ""),
        BACKLOG_STAT("aeron-backlog-stat", "io.aeron.samples.BacklogStat",
            "Per stream, the publisher's position and window, how far the sender is behind it, and each\n" +
            "subscriber's backlog behind the receiver",
            "");

        final String command;
        final String className;
        final String shows;
        final String arguments;

        Tool(final String command, final String className, final String shows, final String arguments)
        {
            this.command = command;
            this.className = className;
            this.shows = shows;
            this.arguments = arguments;
        }

        static Tool byCommand(final String pathOrName)
        {
            final String name = new File(pathOrName).getName();
            for (final Tool tool : values())
            {
                if (tool.command.equals(name))
                {
                    return tool;
                }
            }
            return null;
        }
    }

    /** What a command line asks for: a tool, the driver directory and the tool's own arguments. */
    record Invocation(Tool tool, String aeronDir, String[] toolArgs)
    {
    }

    private AeronTools()
    {
    }

    /**
     * @param args the command's path (or name), then the directory (optional) and the tool's arguments.
     */
    public static void main(final String[] args)
    {
        final PrintStream out = stdoutEndingOnError();
        System.setOut(out);
        // Also when a tool calls System.exit itself (LossStat without a loss report).
        Runtime.getRuntime().addShutdownHook(new Thread(out::flush, "aeron-tools-flush"));
        final int code = run(args, System.getenv("AERON_DIR"), searchRoots(), out, System.err);
        out.flush();
        if (code >= 0)
        {
            System.exit(code);
        }
        // The tool ran and returned: exit as it left things (it may have started non-daemon threads).
    }

    /**
     * Standard output in UTF-8 (BacklogStat draws with box characters; a base image without locales would
     * make them '?'), ending the process when it cannot be written: a reader that has gone (a pipe into
     * {@code head}, a {@code kubectl exec} that was interrupted) must not leave AeronStat's refresh loop
     * running in the container, where it would keep its memory and CPU time. 141 is a shell's code for a
     * process ended by SIGPIPE.
     */
    static PrintStream stdoutEndingOnError()
    {
        final OutputStream stdout = new FileOutputStream(FileDescriptor.out);
        final OutputStream guarded = new OutputStream()
        {
            @Override
            public void write(final int b)
            {
                try
                {
                    stdout.write(b);
                }
                catch (final IOException ex)
                {
                    Runtime.getRuntime().halt(141);
                }
            }

            @Override
            public void write(final byte[] bytes, final int offset, final int length)
            {
                try
                {
                    stdout.write(bytes, offset, length);
                }
                catch (final IOException ex)
                {
                    Runtime.getRuntime().halt(141);
                }
            }
        };
        return new PrintStream(new BufferedOutputStream(guarded, 8192), true, StandardCharsets.UTF_8);
    }

    /**
     * Resolve the command line and run the tool.
     *
     * @return an exit code to exit with, or -1 when the tool ran and returned normally.
     */
    static int run(
        final String[] args, final String envAeronDir, final List<File> roots, final PrintStream out,
        final PrintStream err)
    {
        final Tool tool = args.length > 0 ? Tool.byCommand(args[0]) : null;
        if (null == tool)
        {
            err.println("usage: aeron-stat|aeron-error-stat|aeron-loss-stat|aeron-backlog-stat [AERON_DIR] [args...]" +
                " (this launcher is run as one of those commands; got " + Arrays.toString(args) + ")");
            return USAGE;
        }

        final String[] rest = Arrays.copyOfRange(args, 1, args.length);
        if (rest.length > 0 && isHelp(rest[0]))
        {
            out.print(usage(tool, roots));
            return 0;
        }

        final Invocation invocation = resolve(tool, rest, envAeronDir);
        if (null == invocation.aeronDir())
        {
            err.print(tool.command + ": no Aeron directory: give it as the first argument or in AERON_DIR\n" +
                usage(tool, roots));
            return USAGE;
        }
        if (!new File(invocation.aeronDir(), CNC_FILE).isFile())
        {
            err.print(tool.command + ": no media driver at " + invocation.aeronDir() + " (no " + CNC_FILE +
                " there)\n" + driverDirectoriesText(roots));
            return FAILED;
        }

        // Read by every tool through CommonContext (LossStat reads the property itself).
        System.setProperty("aeron.dir", invocation.aeronDir());
        try
        {
            Class.forName(tool.className)
                .getMethod("main", String[].class)
                .invoke(null, (Object)invocation.toolArgs());
            return -1;
        }
        catch (final ClassNotFoundException ex)
        {
            err.println(tool.command + ": " + tool.className + " is not on the class path (aeron-all.jar missing?)");
            return FAILED;
        }
        catch (final InvocationTargetException ex)
        {
            final Throwable cause = null != ex.getCause() ? ex.getCause() : ex;
            err.println(tool.command + ": " + cause);
            return FAILED;
        }
        catch (final ReflectiveOperationException ex)
        {
            err.println(tool.command + ": cannot run " + tool.className + ": " + ex);
            return FAILED;
        }
    }

    /**
     * The first argument is the directory unless it is an option ({@code -...}) or one of AeronStat's
     * {@code name=value} arguments; then {@code AERON_DIR} is; else none.
     */
    static Invocation resolve(final Tool tool, final String[] rest, final String envAeronDir)
    {
        if (rest.length > 0 && !rest[0].startsWith("-") && rest[0].indexOf('=') < 0 && !rest[0].isEmpty())
        {
            return new Invocation(tool, rest[0], Arrays.copyOfRange(rest, 1, rest.length));
        }
        final String dir = null == envAeronDir || envAeronDir.isBlank() ? null : envAeronDir;
        return new Invocation(tool, dir, rest);
    }

    static boolean isHelp(final String arg)
    {
        return "-h".equals(arg) || "--help".equals(arg) || "-help".equals(arg) || "-?".equals(arg);
    }

    static String usage(final Tool tool, final List<File> roots)
    {
        final StringBuilder text = new StringBuilder()
            .append("usage: ").append(tool.command).append(" [AERON_DIR]")
            .append(tool.arguments.isEmpty() ? "" : " [name=value...]").append('\n')
            .append("Aeron's ").append(tool.className).append(":\n").append(tool.shows).append(".\n")
            .append("AERON_DIR: the media driver's directory (default: $AERON_DIR).\n");
        if (!tool.arguments.isEmpty())
        {
            text.append("arguments of ").append(tool.className).append(":\n").append(tool.arguments);
        }
        return text.append(driverDirectoriesText(roots)).toString();
    }

    static String driverDirectoriesText(final List<File> roots)
    {
        final List<String> found = driverDirectories(roots);
        final StringBuilder text = new StringBuilder();
        if (found.isEmpty())
        {
            text.append("no media driver directories (with ").append(CNC_FILE).append(") under ")
                .append(String.join(" or ", roots.stream().map(File::getPath).toList())).append('\n');
        }
        else
        {
            text.append("media driver directories here:\n");
            for (final String dir : found)
            {
                text.append("  ").append(dir).append('\n');
            }
        }
        return text.toString();
    }

    /** Directories right under the roots that hold a media driver's cnc.dat, sorted, without repeats. */
    static List<String> driverDirectories(final List<File> roots)
    {
        final Set<String> found = new LinkedHashSet<>();
        for (final File root : roots)
        {
            final File[] children = root.listFiles(File::isDirectory);
            if (null == children)
            {
                continue;
            }
            Arrays.sort(children);
            for (final File child : children)
            {
                if (new File(child, CNC_FILE).isFile())
                {
                    found.add(child.getAbsolutePath());
                }
            }
        }
        return new ArrayList<>(found);
    }

    /** /dev/shm, and java.io.tmpdir where it is elsewhere (the tools' embedded drivers live there). */
    static List<File> searchRoots()
    {
        final List<File> roots = new ArrayList<>();
        roots.add(new File(SHM));
        final String tmp = System.getProperty("java.io.tmpdir");
        if (null != tmp && !new File(tmp).getAbsoluteFile().equals(new File(SHM).getAbsoluteFile()))
        {
            roots.add(new File(tmp));
        }
        return roots;
    }
}
