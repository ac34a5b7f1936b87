package io.mdfanout.affinity;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * One thread of a process as the kernel reports it in {@code /proc/<pid>/task/<tid>}: its id, its
 * name (the first 15 characters of the Java thread name) and the CPUs it may run on. For checking
 * from outside (tests, diagnostics) which threads a role pinned where.
 *
 * @param tid  the kernel's thread id.
 * @param name the thread's name ({@code comm}).
 * @param cpus the CPUs it may run on (Cpus_allowed_list).
 */
public record TaskCpus(long tid, String name, CpuSet cpus)
{
    /**
     * @param pid a process id.
     * @return its threads at this moment, in no particular order; threads that end while being read are left out.
     * @throws IllegalStateException when the process's task directory cannot be listed (gone, not Linux).
     */
    public static List<TaskCpus> of(final long pid)
    {
        final Path taskDirectory = Path.of("/proc", Long.toString(pid), "task");
        final List<TaskCpus> tasks = new ArrayList<>();
        try (Stream<Path> entries = Files.list(taskDirectory))
        {
            for (final Path task : (Iterable<Path>)entries::iterator)
            {
                final CpuSet cpus = ThreadAffinity.procAllowedCpus(task.resolve("status"));
                final String name = readName(task);
                if (null != cpus && null != name)
                {
                    tasks.add(new TaskCpus(Long.parseLong(task.getFileName().toString()), name, cpus));
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new IllegalStateException("cannot list the threads of process " + pid + ": " + ex.getMessage(), ex);
        }
        return tasks;
    }

    private static String readName(final Path task)
    {
        try
        {
            return Files.readString(task.resolve("comm")).trim();
        }
        catch (final IOException ex)
        {
            return null;
        }
    }
}
