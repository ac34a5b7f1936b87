package io.mdfanout.cli;

import io.mdfanout.wire.RingDirectoryLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * docs/QUICKSTART.md's "Role by role" blocks, run as a reader runs them: each {@code bin/mdfanout} command of a block,
 * taken from the markdown, in the order written, each in a process of its own (the launcher's JVM), with the ring
 * directories, groups, ports and channel the document gives. What the document promises is checked: the books of
 * the symbols asked for, the trades of the symbol tailed, message rates, lines A and B with the re-request server
 * filling what both lost, and a clean stop (exit 0) of every role on Ctrl-C's SIGTERM. A renamed option, a changed
 * default or a broken start order fails here rather than for the reader.
 */
class QuickstartTest
{
    private static final Path QUICKSTART = DocumentedCommandsTest.REPOSITORY.resolve("docs").resolve("QUICKSTART.md");
    private static final Path RING_DIRS = Path.of("/dev/shm/mdfanout");
    private static final Pattern RATE = Pattern.compile("messages/s=(\\d+)");
    private static final Pattern FEED_FINAL = Pattern.compile(
        "lineB\\[packets=(\\d+) first=(\\d+).*lineR\\[packets=(\\d+).* gapsDetected=(\\d+) gapsFilled=(\\d+) " +
        "gapsDeclared=(\\d+)");

    private final List<ChainProcess> processes = new ArrayList<>();

    @AfterEach
    void takeDown()
    {
        for (int i = processes.size() - 1; i >= 0; i--)
        {
            processes.get(i).close();
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theRoleByRoleBlocksRunAsWrittenAndShowWhatTheyPromise(@TempDir final Path dir) throws Exception
    {
        final List<List<MarkdownCommands.Command>> blocks = chainBlocks();
        assertEquals(2, blocks.size(), "QUICKSTART has two blocks that start a chain: " + blocks);

        // Block 1: one line; book, tail and stats subscribers; the simulator last.
        final List<MarkdownCommands.Command> first = blocks.get(0);
        assertEquals(List.of("feed-handler", "fanout", "book", "tail", "stats", "simulator"), roles(first),
            "the first block's roles, in the order written");
        removeRingDirectories();
        final ChainProcess feed = start(dir, "1-feed-handler", first.get(0));
        await(feed, "receiving line A", 60);
        final ChainProcess fanout = start(dir, "1-fanout", first.get(1));
        final ChainProcess book = start(dir, "1-book", first.get(2));
        final ChainProcess tail = start(dir, "1-tail", first.get(3));
        final ChainProcess stats = start(dir, "1-stats", first.get(4));
        await(stats, "noPublisher=0", 90);
        final ChainProcess simulator = start(dir, "1-simulator", first.get(5));
        awaitLine(stats, (line) -> rate(line) > 0, "a message rate", 60);
        awaitLine(book, (line) -> line.startsWith("AAPL ("), "the book of AAPL", 30);
        awaitLine(book, (line) -> line.startsWith("MSFT ("), "the book of MSFT", 30);
        awaitLine(tail, (line) -> line.contains(" NVDA"), "NVDA's messages", 30);
        final List<String> tailed = tail.linesContaining(" inst=");
        assertTrue(tailed.stream().allMatch((line) -> line.contains(" NVDA")),
            "tail --symbol NVDA prints NVDA only: " + tailed.stream().filter((l) -> !l.contains(" NVDA")).limit(3).toList());
        stopInTurn(simulator, stats, tail, book, fanout, feed);

        // Block 2: lines A and B with 1% loss each and a re-request server, in a ring directory of its own.
        final List<MarkdownCommands.Command> second = blocks.get(1);
        assertEquals(List.of("feed-handler", "fanout", "simulator"), roles(second),
            "the second block's roles, in the order written");
        final ChainProcess feed2 = start(dir, "2-feed-handler", second.get(0));
        await(feed2, "receiving line A", 60);
        final ChainProcess fanout2 = start(dir, "2-fanout", second.get(1));
        final ChainProcess stats2 = start(dir, "2-stats", first.get(4)); // "subscribers: as many as you like"
        await(stats2, "noPublisher=0", 90);
        final ChainProcess simulator2 = start(dir, "2-simulator", second.get(2));
        awaitLine(stats2, (line) -> rate(line) > 0, "a message rate", 60);
        // Until the feed handler's stats say both repairs happened: line B filled and the re-request server answered.
        awaitLine(feed2, (line) ->
        {
            final Matcher running = FEED_FINAL.matcher(line);
            return running.find() && Long.parseLong(running.group(2)) > 0 && Long.parseLong(running.group(3)) > 0;
        }, "line B and the re-request server filling losses", 90);
        stopInTurn(simulator2, stats2, fanout2, feed2);
        final String finalLine = feed2.lastLineContaining("feed-handler: final");
        final Matcher counts = FEED_FINAL.matcher(finalLine);
        assertTrue(counts.find(), "the feed handler's final counts: " + feed2.logTail());
        assertTrue(Long.parseLong(counts.group(2)) > 0, "line B delivered what line A lost first: " + finalLine);
        assertTrue(Long.parseLong(counts.group(3)) > 0, "the re-request server filled what both lost: " + finalLine);
        assertEquals("0", counts.group(6), "nothing declared missing: " + finalLine);
        final String lastStats = stats2.lastLineContaining("messages/s=");
        assertTrue(lastStats.contains(" gaps=0 missing=0 "), "the subscriber saw no gap: " + lastStats);
        System.out.println("quickstart: both role-by-role blocks ran as written; with 1% loss per line: " + finalLine);
        removeRingDirectories();
    }

    /** Stop each role as a reader would (SIGTERM, as Ctrl-C's SIGINT): each exits 0, as the docs promise. */
    private void stopInTurn(final ChainProcess... roles) throws InterruptedException
    {
        for (final ChainProcess role : roles)
        {
            assertEquals(0, role.stop(), role.name() + " stops cleanly on SIGTERM: " + role.logTail());
            processes.remove(role);
        }
    }

    /** QUICKSTART's code blocks that start a feed handler, each as its list of commands. */
    private static List<List<MarkdownCommands.Command>> chainBlocks() throws IOException
    {
        final List<List<MarkdownCommands.Command>> blocks = new ArrayList<>();
        int block = -1;
        for (final MarkdownCommands.Command command : MarkdownCommands.of(QUICKSTART))
        {
            if (command.block() != block)
            {
                block = command.block();
                blocks.add(new ArrayList<>());
            }
            blocks.get(blocks.size() - 1).add(command);
        }
        blocks.removeIf((commands) -> !roles(commands).contains("feed-handler"));
        return blocks;
    }

    private static List<String> roles(final List<MarkdownCommands.Command> commands)
    {
        return commands.stream().map((c) -> c.args().get(0)).toList();
    }

    private ChainProcess start(final Path dir, final String name, final MarkdownCommands.Command command)
        throws IOException
    {
        final ChainProcess process = ChainProcess.start(name, dir, command.args().toArray(new String[0]));
        processes.add(process);
        return process;
    }

    private static long rate(final String line)
    {
        final Matcher matcher = RATE.matcher(line);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : -1;
    }

    private void await(final ChainProcess process, final String text, final int seconds) throws Exception
    {
        awaitLine(process, (line) -> line.contains(text), "'" + text + "'", seconds);
    }

    private void awaitLine(final ChainProcess process, final Predicate<String> wanted, final String what,
        final int seconds) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (process.linesContaining("").stream().noneMatch(wanted))
        {
            for (final ChainProcess other : processes)
            {
                assertTrue(other.isAlive(), other.name() + " exited: " + other.logTail());
            }
            if (System.nanoTime() > deadline)
            {
                fail(process.name() + " did not print " + what + " within " + seconds + " s: " + process.logTail());
            }
            Thread.sleep(200);
        }
    }

    /** The documented ring directories, as a reader starting afresh has them: not there. */
    private static void removeRingDirectories() throws IOException
    {
        for (final String feed : List.of("feed-1", "feed-2"))
        {
            final Path ringDir = RING_DIRS.resolve(feed);
            if (Files.exists(ringDir))
            {
                // A chain a reader runs there now is refused here, naming its holder, not deleted under it.
                RingDirectoryLock.acquire(ringDir, "QuickstartTest").close();
                try (var files = Files.walk(ringDir))
                {
                    for (final Path file : files.sorted(java.util.Comparator.reverseOrder()).toList())
                    {
                        Files.delete(file);
                    }
                }
            }
            assertFalse(Files.exists(ringDir), ringDir.toString());
        }
        try
        {
            Files.deleteIfExists(RING_DIRS); // their parent too, unless something else lives there
        }
        catch (final java.nio.file.DirectoryNotEmptyException ignore)
        {
            // another feed's rings: not this test's
        }
    }
}
