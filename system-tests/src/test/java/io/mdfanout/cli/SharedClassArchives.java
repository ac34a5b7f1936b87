package io.mdfanout.cli;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32;

/**
 * Class-data sharing (AppCDS) for the roles the system tests start, some 250 JVMs a run on a 2-core machine. The
 * first process of each role ({@code simulator}, {@code feed-handler}, {@code fanout}, {@code record}, ...) dumps the
 * classes it loaded into an archive when it exits ({@code -XX:ArchiveClassesAtExit}); later processes of that role
 * map it ({@code -XX:SharedArchiveFile}) and start about half a second sooner, with less CPU taken from the roles
 * already running. An archive that does not match (a jar rebuilt since) is ignored by the JVM, which then loads its
 * classes as usual: what a test sees never depends on it. A process killed with -9 leaves no archive, and the next
 * process of its role dumps one instead. The archives live under {@code target/cds/}, shared by the test classes.
 *
 * <p>The JVM archives classes from jar files only and refuses to dump with a non-empty directory on the class path, so
 * the roles run on the test class path less this module's own class directories (which hold only the tests). Where
 * any other directory is on it (a run from an IDE), sharing is off.
 */
final class SharedClassArchives
{
    private static final String ARCHIVE_SUFFIX = ".jsa";
    private static final String CLASS_PATH;
    private static final boolean ENABLED;
    private static final String DUMPING_NAME = "." + ProcessHandle.current().pid() + ".dumping";
    private static final Set<String> DUMPING = ConcurrentHashMap.newKeySet();
    private static final Path DIR;

    static
    {
        final Path ownClasses = ownClassDirectory();
        final List<String> entries = new ArrayList<>();
        boolean onlyJars = true;
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            final Path path = Path.of(entry).toAbsolutePath();
            if (Files.isDirectory(path))
            {
                if (null != ownClasses && java.util.Objects.equals(path.getParent(), ownClasses.getParent()) &&
                    (path.endsWith("test-classes") || path.endsWith("classes")))
                {
                    continue;
                }
                onlyJars = false;
            }
            entries.add(entry);
        }
        CLASS_PATH = String.join(File.pathSeparator, entries);
        DIR = Path.of("target", "cds", key(entries)).toAbsolutePath();
        ENABLED = onlyJars && createDirectory();
    }

    private SharedClassArchives()
    {
    }

    /** The class path the roles run on. */
    static String classPath()
    {
        return CLASS_PATH;
    }

    /**
     * The JVM options for a new process of {@code role}: map its archive where there is one, else dump one at exit
     * where no other process of the role is dumping already, else none.
     */
    static List<String> options(final String role)
    {
        if (!ENABLED || role.isEmpty())
        {
            return List.of();
        }
        final Path archive = DIR.resolve(role + ARCHIVE_SUFFIX);
        if (Files.exists(archive))
        {
            return List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds*=off");
        }
        if (DUMPING.add(role))
        {
            return List.of("-XX:ArchiveClassesAtExit=" + DIR.resolve(role + DUMPING_NAME), "-Xlog:cds*=off");
        }
        return List.of();
    }

    /**
     * After the start of a process that was given {@code options}: when it dumps, its archive becomes the role's once
     * it has exited on its own or on SIGTERM (a process killed mid-dump would leave a torn file).
     */
    static void started(final String role, final List<String> options, final Process process)
    {
        if (options.isEmpty() || !options.get(0).startsWith("-XX:ArchiveClassesAtExit="))
        {
            return;
        }
        process.onExit().thenAccept(exited ->
        {
            final int exitValue = exited.exitValue();
            final Path dumped = DIR.resolve(role + DUMPING_NAME);
            try
            {
                if ((exitValue < 128 || 143 == exitValue) && Files.exists(dumped))
                {
                    Files.move(dumped, DIR.resolve(role + ARCHIVE_SUFFIX), StandardCopyOption.ATOMIC_MOVE);
                }
                else
                {
                    Files.deleteIfExists(dumped);
                }
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex);
            }
            finally
            {
                DUMPING.remove(role);
            }
        });
    }

    private static Path ownClassDirectory()
    {
        try
        {
            return Path.of(SharedClassArchives.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        }
        catch (final Exception ex)
        {
            return null;
        }
    }

    private static boolean createDirectory()
    {
        try
        {
            Files.createDirectories(DIR);
            return true;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    /**
     * The archives' directory is shared by the test classes (each runs in a JVM of its own) and named after the jars'
     * sizes and times and the JDK, so that a rebuild starts new archives rather than keep ones the JVM would ignore.
     */
    private static String key(final List<String> entries)
    {
        final CRC32 crc = new CRC32();
        crc.update(System.getProperty("java.home").getBytes(StandardCharsets.UTF_8));
        for (final String entry : entries)
        {
            final File file = new File(entry);
            crc.update((entry + ':' + file.length() + ':' + file.lastModified() + ';').getBytes(StandardCharsets.UTF_8));
        }
        return Long.toHexString(crc.getValue());
    }
}
