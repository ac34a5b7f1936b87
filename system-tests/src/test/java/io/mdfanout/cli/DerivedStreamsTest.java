package io.mdfanout.cli;

import io.aeron.Aeron;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.SymbolDirectory;
import io.mdfanout.wire.FeedStream;
import io.mdfanout.wire.Partitioning;
import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The derived streams (issue 40, docs/WIRE.md "Derived streams"), every role a process of its own over real multicast,
 * the subscribers in this JVM: over a 1,000,000-message session each derived stream (top of book, ten levels, trades,
 * 1 s and 1 min bars) equals, message for message, what the Java SDK's OrderBooks computes from the MBO stream
 * ({@link DerivedOracle}, from the simulator's session, not from the chain); a top-of-book subscriber that joins late,
 * and one that lives through a kill -9 of the fanout, recover from the stream's snapshots and then match it; so do a
 * trades and a bars subscriber, and the restarted fanout's symbol directory holds every instrument.
 */
class DerivedStreamsTest
{
    private static final int PARTITIONS = 4;
    private static final int SYMBOLS = 200;
    private static final long SEED = 20261130L;
    private static final Pattern SEQUENCE = Pattern.compile("^seq=(\\d+) ts=(\\d+) inst=(\\d+) (.*)$");
    /** A bar's line (DerivedLines): its key (instrument/interval seconds/start), then its values. */
    private static final Pattern BAR = Pattern.compile("^seq=(?<seq>\\d+) ts=(?<ts>\\d+) " +
        "(?<key>\\d+/(?<seconds>\\d+)/(?<start>\\d+)) (?<values>o=(?<o>-?\\d+) h=(?<h>-?\\d+) l=(?<l>-?\\d+) " +
        "c=(?<c>-?\\d+) v=(?<v>\\d+) n=(?<n>\\d+) partial=(?<partial>\\d))$");

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void everyDerivedStreamIsWhatOrderBooksComputeAtEveryUpdateAndALateTopOfBookSubscriberRecoversAndMatches(
        @TempDir final Path dir) throws Exception
    {
        final long messages = 1_000_000;
        final String channel = "aeron:udp?endpoint=224.0.1.141:47300|interface=127.0.0.1|mtu=8192";
        final int streamIdBase = 4730;
        try (ChainHarness chain = new ChainHarness(dir, "derived", PARTITIONS, channel, streamIdBase);
            Subscribers subscribers = new Subscribers())
        {
            final ChainProcess feedHandler =
                chain.feedHandler("--group", "239.255.47.31", "--port", "47310", "--interface", "127.0.0.1");
            chain.fanout("--snapshot-interval-ms", "1000", "--derived-streams", "bbo,mbp-10,trades,ohlcv");
            final Map<FeedStream, DerivedCollector> full = new TreeMap<>();
            for (final FeedStream stream : new FeedStream[] {FeedStream.BBO, FeedStream.DEPTH, FeedStream.TRADES,
                FeedStream.BARS})
            {
                full.put(stream, subscribers.add(channel, streamIdBase, stream));
            }
            feedHandler.awaitLine("receiving line A"); // the session's start must not be lost on the way
            Thread.sleep(2_000); // every stream's image is set up before the exchange starts

            final ChainProcess simulator = chain.simulator(
                "--group", "239.255.47.31", "--port", "47310", "--interface", "127.0.0.1",
                "--seed", Long.toString(SEED), "--symbols", Integer.toString(SYMBOLS),
                // 20,000 a second: the depth stream (ten levels a side, 350 bytes a change, nearly one per message)
                // is seven times the MBO stream's bytes, and this JVM receives and decodes every derived stream beside
                // the chain on two cores: at 30,000 (10.6 MB/s of depth) it fell behind once in four fresh runs, and
                // the fanout dropped 1,039 depth messages its backlog could not hold (fresh run 12).
                "--messages", Long.toString(messages), "--rate", "20000");
            ChainHarness.awaitSimulatorProgress(simulator, messages / 4);
            final DerivedCollector late = subscribers.add(channel, streamIdBase, FeedStream.BBO);

            assertEquals(0, simulator.waitFor(5, TimeUnit.MINUTES), "simulator exit code");
            for (final DerivedCollector collector : full.values())
            {
                assertTrue(collector.awaitEnd(2, TimeUnit.MINUTES), collector.stream + " reached End of Messages: " +
                    collector.describe());
            }
            assertTrue(late.awaitEnd(2, TimeUnit.MINUTES), "the late subscriber reached End of Messages: " +
                late.describe());
            subscribers.close();

            final DerivedOracle oracle = DerivedOracle.compute(
                ExpectedStreams.generate(SEED, SYMBOLS, messages, PARTITIONS));
            for (final DerivedCollector collector : full.values())
            {
                assertTrue(collector.problems.isEmpty(), collector.stream + ": " + collector.problems);
                assertTrue(collector.stale.isEmpty(), collector.stream + " was never stale: " + collector.stale);
                for (int p = 0; p < PARTITIONS; p++)
                {
                    assertTrue(collector.snapshotLines.get(p).isEmpty(), collector.stream + " needed no snapshot");
                }
            }
            final long bbo = assertSameLines("bbo", oracle.bbo, full.get(FeedStream.BBO).lines);
            final long depth = assertSameLines("mbp-10", oracle.depth, full.get(FeedStream.DEPTH).lines);
            final long trades = assertSameLines("trades", oracle.trades, full.get(FeedStream.TRADES).lines);
            final long bars = assertBars(oracle, full.get(FeedStream.BARS));
            System.out.println("derived streams over " + messages + " messages: bbo=" + bbo + " mbp-10=" + depth +
                " trades=" + trades + " bars=" + bars + ", each equal to OrderBooks' at every update");
            assertTrue(bbo > messages / 20 && depth > bbo && trades > messages / 100 && bars > 100,
                "the session changed books, traded and made bars: bbo=" + bbo + " mbp-10=" + depth + " trades=" +
                trades + " bars=" + bars);

            assertRecoveredAndMatches("the late subscriber", late, oracle, "LATE_JOIN");
            chain.passed();
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void topOfBookTradesBarsAndTheSymbolDirectoryLiveThroughAFanoutKillNine(@TempDir final Path dir) throws Exception
    {
        final long messages = 1_000_000;
        final String channel = "aeron:udp?endpoint=224.0.1.143:47400|interface=127.0.0.1|mtu=8192";
        final int streamIdBase = 4740;
        try (ChainHarness chain = new ChainHarness(dir, "derived-restart", PARTITIONS, channel, streamIdBase);
            Subscribers subscribers = new Subscribers())
        {
            final ChainProcess feedHandler = chain.feedHandler(
                "--group", "239.255.47.41", "--port", "47410", "--interface", "127.0.0.1",
                "--retransmit-server", "127.0.0.1:47450");
            final String streams = "bbo,trades,ohlcv";
            final ChainProcess fanout = chain.fanout("--snapshot-interval-ms", "1000", "--derived-streams", streams);
            final DerivedCollector bbo = subscribers.add(channel, streamIdBase, FeedStream.BBO);
            final DerivedCollector trades = subscribers.add(channel, streamIdBase, FeedStream.TRADES);
            final DerivedCollector bars = subscribers.add(channel, streamIdBase, FeedStream.BARS);
            feedHandler.awaitLine("receiving line A");
            Thread.sleep(2_000);

            final ChainProcess simulator = chain.simulator(
                "--group", "239.255.47.41", "--port", "47410", "--interface", "127.0.0.1",
                "--seed", Long.toString(SEED), "--symbols", Integer.toString(SYMBOLS),
                "--messages", Long.toString(messages), "--rate", "50000", "--retransmit-port", "47450",
                "--linger-ms", "5000");
            // A quarter in: the restarted fanout catches up with the rings at once, and the session goes on long after.
            ChainHarness.awaitSimulatorProgress(simulator, messages / 4);
            fanout.kill9();
            Thread.sleep(1_500); // the feed handler keeps writing the rings meanwhile
            assertTrue(feedHandler.isAlive(), "the feed handler runs through the fanout outage");
            chain.namedFanout("fanout-restarted", "--snapshot-interval-ms", "1000", "--derived-streams", streams);

            for (final DerivedCollector collector : List.of(bbo, trades, bars))
            {
                assertTrue(collector.awaitEnd(3, TimeUnit.MINUTES),
                    collector.stream + " through the kill reached End of Messages: " + collector.describe());
            }
            for (final DerivedCollector collector : List.of(bbo, trades, bars))
            {
                collector.close(); // what they hold is the session's: nothing after its end
            }
            // Every instrument was defined at the session's start, long before the kill: a directory read from the
            // restarted fanout holds them only if it restored them from its resumed state.
            assertRestoredDirectory(subscribers.aeron, channel, streamIdBase);
            ChainHarness.endLingeringSimulator(simulator);
            subscribers.close();

            final DerivedOracle oracle = DerivedOracle.compute(
                ExpectedStreams.generate(SEED, SYMBOLS, messages, PARTITIONS));
            assertRecoveredAndMatches("the top-of-book subscriber through the fanout's kill -9", bbo, oracle,
                "NEW_PUBLICATION");
            assertTradesThroughTheKill(trades, oracle);
            assertBarsThroughTheKill(bars, oracle);
            chain.passed();
        }
    }

    /**
     * A trades subscriber through the kill: stale with NEW_PUBLICATION and recovered on every partition; what it was
     * given is the oracle's first prints, then, from the restarted fanout, the oracle's last, each in order, none
     * twice (the prints in between are the announced gap: the trades stream has no state, its snapshots carry no
     * print, docs/WIRE.md).
     */
    private static void assertTradesThroughTheKill(final DerivedCollector collector, final DerivedOracle oracle)
    {
        assertStaleAndRecovered("the trades subscriber", collector, "NEW_PUBLICATION");
        long before = 0;
        long after = 0;
        for (int p = 0; p < PARTITIONS; p++)
        {
            final List<String> want = oracle.trades.get(p);
            final List<String> got = collector.lines.get(p);
            int split = 0;
            while (split < got.size() && split < want.size() && want.get(split).equals(got.get(split)))
            {
                split++;
            }
            final List<String> tail = got.subList(split, got.size());
            assertTrue(split > 0 && split <= collector.linesAtRecovery[p] && tail.size() > 100 &&
                split + tail.size() < want.size(), "partition " + p + ": " + split + " prints the oracle's first, " +
                tail.size() + " after them, " + collector.linesAtRecovery[p] + " at the recovery, " + want.size() +
                " in the session");
            assertSameRun(want, want.size() - tail.size(), tail,
                "partition " + p + "'s prints after the kill's gap are the session's last (" + collector.describe() +
                ")");
            assertTrue(collector.snapshotLines.get(p).isEmpty(),
                "the trades stream has no state: its snapshots carry no print: " + collector.snapshotLines.get(p));
            before += split;
            after += tail.size();
        }
        System.out.println("the trades subscriber through the fanout's kill -9: the oracle's first " + before +
            " prints, then its last " + after + ", in order; stale " + collector.stale);
    }

    /**
     * A bars subscriber through the kill: stale and recovered on every partition; every bar it was given is one of the
     * oracle's intervals; a complete bar is the oracle's, and sent once; a bar marked partial (begun before the
     * restart: docs/WIRE.md) holds a part of the interval's prints: the same close, no more volume or prints, a range
     * within the oracle's, and is sent once; and complete bars came after the recovery.
     */
    private static void assertBarsThroughTheKill(final DerivedCollector collector, final DerivedOracle oracle)
    {
        assertStaleAndRecovered("the bars subscriber", collector, "NEW_PUBLICATION");
        final Set<String> completeKeys = new HashSet<>();
        final Set<String> partialKeys = new HashSet<>();
        long completeAfter = 0;
        for (int p = 0; p < PARTITIONS; p++)
        {
            final List<String> got = collector.lines.get(p);
            for (int i = 0; i < got.size(); i++)
            {
                final String line = got.get(i);
                final Matcher m = BAR.matcher(line);
                assertTrue(m.matches(), line);
                final String key = m.group("key");
                final String want = oracle.bars.get(key);
                assertTrue(null != want, "a bar of the session: " + line);
                if ("0".equals(m.group("partial")))
                {
                    assertTrue(completeKeys.add(key), "a complete bar is sent once: " + line);
                    assertEquals(want, m.group("values"), "a complete bar is the oracle's");
                    completeAfter += i >= collector.linesAtRecovery[p] ? 1 : 0;
                }
                else
                {
                    assertTrue(partialKeys.add(key), "a partial bar is sent once: " + line);
                    final Matcher w = BAR.matcher("seq=0 ts=0 " + key + " " + want);
                    assertTrue(w.matches(), want);
                    assertEquals(w.group("c"), m.group("c"), "a partial bar's close is the interval's: " + line);
                    assertTrue(Long.parseLong(m.group("h")) <= Long.parseLong(w.group("h")) &&
                        Long.parseLong(m.group("l")) >= Long.parseLong(w.group("l")) &&
                        Long.parseLong(m.group("v")) <= Long.parseLong(w.group("v")) &&
                        Long.parseLong(m.group("n")) <= Long.parseLong(w.group("n")),
                        "a partial bar is a part of the oracle's <" + want + ">: " + line);
                }
            }
        }
        assertTrue(completeAfter > 0, "complete bars after the recovery");
        System.out.println("the bars subscriber through the fanout's kill -9: " + completeKeys.size() + " complete " +
            "bars, each the oracle's (" + completeAfter + " after the recovery), " + partialKeys.size() + " partial, " +
            "each a part of the oracle's, of " + oracle.bars.size() + " in the session");
    }

    /** {@code got} is {@code want}'s run from {@code from}, or the first difference is named. */
    private static void assertSameRun(
        final List<String> want, final int from, final List<String> got, final String what)
    {
        for (int i = 0; i < got.size(); i++)
        {
            if (!want.get(from + i).equals(got.get(i)))
            {
                fail(what + ": message " + i + " of " + got.size() + " expected <" + want.get(from + i) +
                    "> but was <" + got.get(i) + ">" + (i > 0 ? " (after <" + got.get(i - 1) + ">)" : ""));
            }
        }
    }

    private static void assertStaleAndRecovered(final String who, final DerivedCollector collector, final String reason)
    {
        assertTrue(collector.problems.isEmpty(), who + ": " + collector.problems);
        for (int p = 0; p < PARTITIONS; p++)
        {
            final String partition = p + " ";
            assertTrue(collector.stale.stream().anyMatch((line) -> line.startsWith(partition + reason + " ")),
                who + " was stale with " + reason + " on partition " + p + ": " + collector.stale);
            assertTrue(collector.recovered.stream().anyMatch((line) -> line.startsWith(partition)),
                who + " recovered partition " + p + " from a snapshot: " + collector.recovered);
        }
    }

    /** A directory read from the restarted fanout holds every instrument of the session, each on its partition. */
    private static void assertRestoredDirectory(final Aeron aeron, final String channel, final int streamIdBase)
    {
        final FeedSubscriber.Context feed = new FeedSubscriber.Context()
            .aeron(aeron).channel(channel).streamIdBase(streamIdBase).partitionCount(PARTITIONS);
        final SymbolDirectory.Selection selection = SymbolDirectory.resolve(feed, List.of("AAPL", "NVDA"),
            TimeUnit.SECONDS.toNanos(30), new BackoffIdleStrategy(10, 20, 1_000, 1_000_000));
        assertArrayEquals(new long[] {1, 3}, selection.instrumentIds(), selection.toString());
        assertArrayEquals(new int[] {1, 3}, selection.partitions(), selection.toString());
        try (SymbolDirectory directory = new SymbolDirectory(feed))
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!directory.isComplete() && System.nanoTime() < deadline)
            {
                if (0 == directory.poll(FeedSubscriber.DEFAULT_FRAGMENT_LIMIT))
                {
                    Thread.onSpinWait();
                }
            }
            assertTrue(directory.isComplete(), "the restarted fanout's directory is complete");
            assertEquals(SYMBOLS, directory.size(), "the restarted fanout's directory holds every instrument");
            for (long instrument = 1; instrument <= SYMBOLS; instrument++)
            {
                assertEquals(Partitioning.partitionOf(instrument, PARTITIONS), directory.partitionOf(instrument),
                    "instrument " + instrument + " (" + directory.symbol(instrument) + ")'s partition");
                assertEquals(instrument, directory.instrumentId(directory.symbol(instrument)), "its symbol resolves");
            }
            System.out.println("the restarted fanout's symbol directory: " + directory.size() + " instruments, " +
                selection);
        }
    }

    /** Per partition, the derived stream's lines are the oracle's, in order, one for one. */
    private static long assertSameLines(
        final String stream, final List<List<String>> expected, final List<List<String>> actual)
    {
        long count = 0;
        for (int p = 0; p < expected.size(); p++)
        {
            final List<String> want = expected.get(p);
            final List<String> got = actual.get(p);
            assertSameRun(want, 0, got.subList(0, Math.min(want.size(), got.size())), stream + " partition " + p);
            assertEquals(want.size(), got.size(), stream + " partition " + p + " messages");
            count += got.size();
        }
        return count;
    }

    /** Every bar the oracle computes, none other, each sent once the partition's exchange clock passed its end. */
    private static long assertBars(final DerivedOracle oracle, final DerivedCollector collector)
    {
        final Map<String, String> received = new TreeMap<>();
        for (int p = 0; p < PARTITIONS; p++)
        {
            for (final String line : collector.lines.get(p))
            {
                final Matcher m = BAR.matcher(line);
                assertTrue(m.matches(), line);
                final long closedBy = Long.parseLong(m.group("seq"));
                final long closedAt = Long.parseLong(m.group("ts"));
                final long end = Long.parseLong(m.group("start")) + Long.parseLong(m.group("seconds")) * 1_000_000_000L;
                assertTrue(closedAt >= end || oracle.dayEndSequences.contains(closedBy),
                    "a bar is sent once its interval is over (or at the day's end): " + line);
                final String key = m.group("key");
                assertEquals(null, received.put(key, m.group("values")), "bar " + key + " sent once");
            }
        }
        assertEquals(oracle.bars.size(), received.size(), "bars");
        for (final Map.Entry<String, String> entry : oracle.bars.entrySet())
        {
            assertEquals(entry.getValue(), received.get(entry.getKey()), "bar " + entry.getKey());
        }
        return received.size();
    }

    /**
     * A top-of-book subscriber that was stale for {@code reason} on every partition recovered each from a snapshot;
     * every message it was given (from a snapshot or not) is the oracle's top of book of that instrument as of the
     * message's exchange sequence; after its recovery it was given every change the oracle has, in order; and it ends
     * holding the oracle's last top of book of every instrument (an instrument a restarted fanout's snapshot leaves
     * out has an empty book: absent and empty are the same to a subscriber).
     */
    private static void assertRecoveredAndMatches(
        final String who, final DerivedCollector collector, final DerivedOracle oracle, final String reason)
    {
        assertStaleAndRecovered(who, collector, reason);
        long checked = 0;
        long snapshotMessages = 0;
        for (int p = 0; p < PARTITIONS; p++)
        {
            final List<String> all = new ArrayList<>(collector.snapshotLines.get(p));
            snapshotMessages += all.size();
            all.addAll(collector.lines.get(p));
            for (final String line : all)
            {
                final Matcher m = SEQUENCE.matcher(line);
                assertTrue(m.matches(), line);
                final long instrument = Long.parseLong(m.group(3));
                final String values = "inst=" + instrument + " " + m.group(4);
                assertEquals(oracle.bboAsOf(instrument, Long.parseLong(m.group(1))), values,
                    who + ": partition " + p + " top of book as of its exchange sequence: " + line);
                checked++;
            }
            // After the last recovery, the live messages are the oracle's, in order, to the session's end.
            final List<String> live = collector.lines.get(p);
            final List<String> afterRecovery = live.subList(collector.linesAtRecovery[p], live.size());
            final List<String> want = oracle.bbo.get(p);
            final int tail = afterRecovery.size();
            assertTrue(tail > 100 && tail <= want.size(),
                who + " was given " + tail + " live messages on partition " + p + " after recovering");
            assertEquals(want.subList(want.size() - tail, want.size()), afterRecovery,
                who + ": partition " + p + "'s " + tail + " changes after its recovery are the oracle's last");
        }
        final Map<Long, String> expected = new HashMap<>(oracle.finalBbo);
        final Map<Long, String> actual = new HashMap<>(collector.bboTable);
        expected.values().removeIf(DerivedStreamsTest::isEmptyBook);
        actual.values().removeIf(DerivedStreamsTest::isEmptyBook);
        assertEquals(new TreeMap<>(expected), new TreeMap<>(actual), who + " holds the oracle's last top of book");
        assertTrue(snapshotMessages > 0, who + " was given a snapshot's top of book");
        System.out.println(who + ": stale " + collector.stale + ", recovered " + collector.recovered + ", " + checked +
            " messages (" + snapshotMessages + " from snapshots) each the oracle's as of its sequence, " +
            actual.size() + " instruments' last top of book the oracle's");
    }

    private static boolean isEmptyBook(final String values)
    {
        return values.endsWith(" bid=-/0/0 ask=-/0/0");
    }

    /** The test JVM's subscribers: one embedded media driver and Aeron client, a collector per stream. */
    private static final class Subscribers implements AutoCloseable
    {
        private final MediaDriver driver;
        final Aeron aeron;
        private final List<DerivedCollector> collectors = new ArrayList<>();
        private boolean closed;

        Subscribers()
        {
            final String dir = new File(System.getProperty("java.io.tmpdir"),
                "derived-test-" + System.nanoTime()).getAbsolutePath();
            driver = MediaDriver.launch(new MediaDriver.Context()
                .aeronDirectoryName(dir)
                .threadingMode(ThreadingMode.SHARED)
                .sharedIdleStrategy(new BackoffIdleStrategy(10, 20, 1_000, 1_000_000))
                .socketRcvbufLength(4 * 1024 * 1024)
                // Every image of the channel (five streams a partition here, and the late subscriber's) shares the
                // socket's 4 MiB: small windows keep a driver thread that lags from overrunning it (each loss costs a
                // retransmission on two busy cores); 1 MiB still holds over a second of a partition's depth stream.
                .initialWindowLength(1024 * 1024)
                .dirDeleteOnStart(true)
                .dirDeleteOnShutdown(true));
            aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(dir));
        }

        DerivedCollector add(final String channel, final int streamIdBase, final FeedStream stream)
        {
            final DerivedCollector collector = new DerivedCollector(aeron, channel, streamIdBase, PARTITIONS, stream);
            collectors.add(collector);
            return collector;
        }

        public void close() throws InterruptedException
        {
            if (!closed)
            {
                closed = true;
                for (final DerivedCollector collector : collectors)
                {
                    collector.close();
                }
                CloseHelper.closeAll(aeron, driver);
            }
        }
    }
}
