package io.mdfanout.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * A file system of a few MiB (a tmpfs mounted for the test; root, as `make test` runs here), to fill: the archive's
 * disk-full behaviour is tested on a real full file system, not a simulated error.
 */
final class SmallDisk implements AutoCloseable
{
    private final Path mountPoint;

    SmallDisk(final Path mountPoint, final int megabytes) throws IOException, InterruptedException
    {
        this.mountPoint = mountPoint;
        Files.createDirectories(mountPoint);
        run("mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m", "tmpfs", mountPoint.toString());
    }

    Path path()
    {
        return mountPoint;
    }

    public void close() throws IOException, InterruptedException
    {
        run("umount", "-l", mountPoint.toString());
    }

    private static void run(final String... command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!process.waitFor(30, TimeUnit.SECONDS) || 0 != process.exitValue())
        {
            fail(String.join(" ", command) + " failed (the archive's disk-full test mounts a tmpfs, as root): " +
                new String(process.getInputStream().readAllBytes()));
        }
    }
}
