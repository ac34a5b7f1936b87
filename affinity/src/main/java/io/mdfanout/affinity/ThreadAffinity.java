package io.mdfanout.affinity;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Platform;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;

/**
 * The operating system's view of thread affinity on Linux: the CPUs a process may run on (what the
 * kubelet's static CPU manager, a cgroup cpuset or {@code taskset} gave it) and pinning the calling
 * thread to a CPU. Calls {@code sched_getaffinity}/{@code sched_setaffinity} through JNA's direct
 * mapping; only at thread start, never on a message path.
 * <p>
 * Where the native call cannot be made (not Linux, JNA cannot unpack its native library, ...),
 * {@link #isAvailable()} is false and {@link #unavailableReason()} says why; the allowed set is then
 * still read from {@code /proc/self/status} where it exists, so a fallback line can say how many
 * CPUs there were.
 */
public final class ThreadAffinity
{
    /** Bytes of the CPU mask passed to the kernel: glibc's {@code cpu_set_t}, 1024 CPUs. */
    private static final int MASK_LONGS = (CpuSet.MAX_CPU + 1) / Long.SIZE;
    private static final Path PROC_SELF_STATUS = Path.of("/proc/self/status");
    private static final Path PROC_THREAD_SELF = Path.of("/proc/thread-self");
    private static final Path SYS_CPU_ONLINE = Path.of("/sys/devices/system/cpu/online");
    private static final String CPUS_ALLOWED_LIST = "Cpus_allowed_list:";

    private static final String UNAVAILABLE_REASON = bindNative();

    private ThreadAffinity()
    {
    }

    private static String bindNative()
    {
        try
        {
            if (!Platform.isLinux())
            {
                return "thread affinity is only supported on Linux (this is " + System.getProperty("os.name") + ")";
            }
            Native.register(LibC.class, Platform.C_LIBRARY_NAME);
            return null;
        }
        catch (final Throwable ex) // LinkageError when JNA's native library cannot be loaded or unpacked
        {
            return "cannot bind sched_setaffinity through JNA (" + ex + "); set -Djna.tmpdir to a writable directory " +
                "if the file system is read-only";
        }
    }

    /** @return true when threads can be pinned here. */
    public static boolean isAvailable()
    {
        return null == UNAVAILABLE_REASON;
    }

    /** @return why threads cannot be pinned here, or null when they can. */
    public static String unavailableReason()
    {
        return UNAVAILABLE_REASON;
    }

    /**
     * The CPUs this process may run on: the affinity of its main thread, which every thread inherits
     * unless changed, and which is the container's cpuset under the static CPU manager.
     *
     * @return the allowed set, or null when it cannot be read at all.
     */
    public static CpuSet processAllowedCpus()
    {
        if (isAvailable())
        {
            try
            {
                return getAffinity((int)ProcessHandle.current().pid());
            }
            catch (final IllegalStateException ignore)
            {
                // fall through to /proc
            }
        }
        return procAllowedCpus(PROC_SELF_STATUS);
    }

    /**
     * The CPUs the machine (or the VM) has online, from {@code /sys/devices/system/cpu/online}, which a
     * container sees unchanged: when a process's allowed set is all of them, it has no exclusive CPUs.
     *
     * @return the online CPUs, or null when they cannot be read.
     */
    public static CpuSet onlineCpus()
    {
        try
        {
            return CpuSet.parse(Files.readString(SYS_CPU_ONLINE).trim());
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }

    /**
     * @return the CPUs the calling thread may run on now.
     * @throws IllegalStateException when affinity is not available or the call fails.
     */
    public static CpuSet currentThreadCpus()
    {
        requireAvailable();
        return getAffinity(0);
    }

    /**
     * Pin the calling thread to one CPU. Threads it starts afterwards inherit the pinning.
     *
     * @param cpu CPU id, within the process's allowed set.
     * @throws IllegalStateException with the errno when the kernel refuses (e.g. the CPU is not allowed).
     */
    public static void pinCurrentThread(final int cpu)
    {
        setCurrentThreadCpus(CpuSet.of(cpu));
    }

    /**
     * Restrict the calling thread to a set of CPUs.
     *
     * @param cpus non-empty set within the process's allowed set.
     * @throws IllegalStateException with the errno when the kernel refuses or affinity is not available.
     */
    public static void setCurrentThreadCpus(final CpuSet cpus)
    {
        requireAvailable();
        if (cpus.isEmpty())
        {
            throw new IllegalArgumentException("cannot pin a thread to an empty CPU set");
        }
        final long[] mask = new long[MASK_LONGS];
        for (int i = 0; i < cpus.size(); i++)
        {
            final int cpu = cpus.cpu(i);
            mask[cpu / Long.SIZE] |= 1L << (cpu % Long.SIZE);
        }
        try
        {
            LibC.sched_setaffinity(0, new NativeLong(mask.length * (long)Long.BYTES), mask);
        }
        catch (final LastErrorException ex)
        {
            throw new IllegalStateException("sched_setaffinity(CPUs " + cpus + ") failed: errno " +
                ex.getErrorCode() + " (" + ex.getMessage() + ")", ex);
        }
    }

    /**
     * @return the kernel's id of the calling thread (what {@code /proc/<pid>/task/<tid>} and {@code top -H}
     * show), or -1 where {@code /proc/thread-self} does not exist.
     */
    public static long currentThreadId()
    {
        try
        {
            // "/proc/thread-self" -> "<pid>/task/<tid>"
            final String target = Files.readSymbolicLink(PROC_THREAD_SELF).toString();
            return Long.parseLong(target.substring(target.lastIndexOf('/') + 1));
        }
        catch (final IOException | RuntimeException ex)
        {
            return -1;
        }
    }

    /**
     * Read a thread's or process's allowed CPUs from a {@code /proc/.../status} file.
     *
     * @param statusFile such as {@code /proc/self/status} or {@code /proc/<pid>/task/<tid>/status}.
     * @return the Cpus_allowed_list, or null when the file or the line is missing.
     */
    public static CpuSet procAllowedCpus(final Path statusFile)
    {
        try
        {
            final List<String> lines = Files.readAllLines(statusFile);
            for (final String line : lines)
            {
                if (line.startsWith(CPUS_ALLOWED_LIST))
                {
                    return CpuSet.parse(line.substring(CPUS_ALLOWED_LIST.length()).trim());
                }
            }
            return null;
        }
        catch (final IOException | RuntimeException ex)
        {
            return null;
        }
    }

    private static CpuSet getAffinity(final int pid)
    {
        final long[] mask = new long[MASK_LONGS];
        try
        {
            LibC.sched_getaffinity(pid, new NativeLong(mask.length * (long)Long.BYTES), mask);
        }
        catch (final LastErrorException ex)
        {
            throw new IllegalStateException("sched_getaffinity failed: errno " + ex.getErrorCode() +
                " (" + ex.getMessage() + ")", ex);
        }
        return CpuSet.fromBits(BitSet.valueOf(mask));
    }

    private static void requireAvailable()
    {
        if (!isAvailable())
        {
            throw new IllegalStateException(UNAVAILABLE_REASON);
        }
    }

    /** JNA direct mapping of the two glibc calls; bound once in {@link #bindNative()}. */
    @SuppressWarnings("checkstyle:MethodName") // JNA binds a native method by its C name
    private static final class LibC
    {
        static native int sched_setaffinity(int pid, NativeLong cpuSetSize, long[] mask) throws LastErrorException;

        static native int sched_getaffinity(int pid, NativeLong cpuSetSize, long[] mask) throws LastErrorException;
    }
}
