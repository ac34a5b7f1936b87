package io.mdfanout.sdk;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Recovery over real Aeron multicast: late join, gaps, snapshot loss, recovery buffer overflow, a
 * new publisher session and the per-instrument replay filter, each ending with books identical to
 * an independent reference (and to a subscriber that saw everything), plus liveness.
 */
class FeedSubscriberRecoveryTest
{
    private static final int PARTITION = 0;
    private static final long[] INSTRUMENTS = { 1, 2, 3, 5, 8 };
    private static TestMedia media;

    @BeforeAll
    static void start()
    {
        media = new TestMedia();
    }

    @AfterAll
    static void stop()
    {
        media.close();
    }

    private static String channel(final int port)
    {
        return "aeron:udp?endpoint=224.0.1.71:" + port + "|interface=127.0.0.1|mtu=8192";
    }

    private static FeedSubscriber subscriber(
        final String channel, final int streamIdBase, final MarketDataListener listener,
        final FeedSubscriber.Context options)
    {
        return new FeedSubscriber(options.aeron(media.aeron()).channel(channel).streamIdBase(streamIdBase)
            .partitions(new int[]{ PARTITION }).listener(listener));
    }



    private static void pollUntil(final BooleanSupplier condition, final FeedSubscriber... subscribers)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean())
        {
            int work = 0;
            for (final FeedSubscriber subscriber : subscribers)
            {
                work += subscriber.poll(10);
            }
            if (0 == work)
            {
                if (System.nanoTime() > deadline)
                {
                    fail("condition not reached; counters: " + subscribers[subscribers.length - 1].counters());
                }
                sleep(1);
            }
        }
    }

    private static void pollFor(final long millis, final FeedSubscriber... subscribers)
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < deadline)
        {
            int work = 0;
            for (final FeedSubscriber subscriber : subscribers)
            {
                work += subscriber.poll(10);
            }
            if (0 == work)
            {
                sleep(1);
            }
        }
    }

    /** Like a fanout: publish a snapshot (a fresh one each time) every 100 ms until the subscriber is live. */
    private static void snapshotUntilRecovered(
        final StreamPublisher snapshots, final FeedSubscriber subscriber, final LongFunction<List<byte[]>> snapshot)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long snapshotId = 100;
        while (subscriber.isStale(PARTITION))
        {
            snapshots.trySend(snapshot.apply(snapshotId++), 4, i -> false);
            pollFor(100, subscriber);
            if (System.nanoTime() > deadline)
            {
                fail("not recovered; counters: " + subscriber.counters());
            }
        }
    }

    private static void sleep(final long millis)
    {
        try
        {
            Thread.sleep(millis);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void lateJoinerRecoversToTheBooksOfAFullSubscriber()
    {
        final String channel = channel(40701);
        final int base = 2100;
        final List<byte[]> messages = MarketScript.generate(1, 3000, INSTRUMENTS, true);
        final BookAndEventListener fullListener = new BookAndEventListener();
        final BookAndEventListener lateListener = new BookAndEventListener();
        try (StreamPublisher incremental = media.incremental(channel, base, PARTITION);
            StreamPublisher snapshots = media.snapshots(channel, base, PARTITION);
            FeedSubscriber full = subscriber(channel, base, fullListener, new FeedSubscriber.Context()))
        {
            TestMedia.awaitConnected(full, incremental.publication());
            incremental.send(messages.subList(0, 1500), 5);
            pollUntil(() -> full.expectedSequence(PARTITION) == 1501, full);

            try (FeedSubscriber late = subscriber(channel, base, lateListener, new FeedSubscriber.Context()))
            {
                pollUntil(late::isConnected, full, late);
                incremental.send(messages.subList(1500, 2000), 5);
                pollUntil(() -> late.expectedSequence(PARTITION) == 2001 && full.expectedSequence(PARTITION) == 2001,
                    full, late);
                assertTrue(late.isStale(PARTITION));
                assertEquals(List.of("STALE 0 LATE_JOIN 1501"), lateListener.events);
                assertTrue(lateListener.books.dump().isEmpty(), "nothing delivered while stale");

                final MarketScript.State reference = new MarketScript.State();
                reference.applyAll(messages, 0, 2000);
                snapshotUntilRecovered(snapshots, late,
                    id -> StreamPublisher.snapshot(PARTITION, id, incremental.sessionId(), reference, 2000));

                incremental.send(messages.subList(2000, 3000), 5);
                pollUntil(() -> late.expectedSequence(PARTITION) == 3001 && full.expectedSequence(PARTITION) == 3001,
                    full, late);

                final MarketScript.State all = new MarketScript.State();
                all.applyAll(messages, 0, messages.size());
                assertFalse(all.dump().isEmpty());
                assertEquals(all.dump(), fullListener.books.dump());
                assertEquals(fullListener.books.dump(), lateListener.books.dump());
                assertEquals("SYM5", lateListener.books.directory().symbol(5));
                assertTrue(lateListener.clean(), "late books applied nothing twice");
                assertEquals("STALE 0 LATE_JOIN 1501", lateListener.events.get(0));
                assertEquals("RECOVERED 0 " + lateListener.events.get(1).split(" ")[2] + " 2000",
                    lateListener.events.get(lateListener.events.size() - 1));
                assertEquals(1, late.counters().recoveries());
                assertEquals(1, late.counters().staleEvents(StaleReason.LATE_JOIN));
                assertTrue(lateListener.snapshotMessages > 0);
                assertEquals(List.of(), fullListener.events);
                assertEquals(0, full.counters().staleEvents());
            }
        }
    }

    @Test
    void filterDeliversEachInstrumentOnlyWhatItsSnapshotLacks()
    {
        final String channel = channel(40703);
        final int base = 2200;
        final List<byte[]> messages = MarketScript.generate(2, 3000, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (StreamPublisher incremental = media.incremental(channel, base, PARTITION);
            StreamPublisher snapshots = media.snapshots(channel, base, PARTITION);
            FeedSubscriber late = subscriber(channel, base, listener, new FeedSubscriber.Context()))
        {
            TestMedia.awaitConnected(late, incremental.publication());
            incremental.nextSequence(1501);   // joins late: 1..1500 happened before
            incremental.send(messages.subList(1500, 2000), 5);
            pollUntil(() -> late.expectedSequence(PARTITION) == 2001, late);

            // Instrument 2 was copied at 1600, everything else at 1900: the replay must give
            // instrument 2 its messages 1601..2000 and the others only 1901..2000.
            final MarketScript.State at1600 = new MarketScript.State();
            at1600.applyAll(messages, 0, 1600);
            final MarketScript.State at1900 = at1600.copy();
            at1900.applyAll(messages, 1600, 1900);
            snapshotUntilRecovered(snapshots, late, id -> StreamPublisher.snapshot(
                PARTITION, id, incremental.sessionId(), at1600, 1600, at1900, 1900, Set.of(2L)));

            incremental.send(messages.subList(2000, 3000), 5);
            pollUntil(() -> late.expectedSequence(PARTITION) == 3001, late);

            final MarketScript.State all = new MarketScript.State();
            all.applyAll(messages, 0, messages.size());
            assertEquals(all.dump(), listener.books.dump());
            assertTrue(listener.clean());
            assertTrue(late.counters().filteredMessages() > 0);
            assertEquals("RECOVERED 0 " + listener.events.get(1).split(" ")[2] + " 1600",
                listener.events.get(listener.events.size() - 1));
        }
    }

    @Test
    void gapWhileLiveRecovers()
    {
        final String channel = channel(40705);
        final int base = 2300;
        final List<byte[]> messages = MarketScript.generate(3, 2000, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (StreamPublisher incremental = media.incremental(channel, base, PARTITION);
            StreamPublisher snapshots = media.snapshots(channel, base, PARTITION);
            FeedSubscriber subscriber = subscriber(channel, base, listener, new FeedSubscriber.Context()))
        {
            TestMedia.awaitConnected(subscriber, incremental.publication());
            incremental.send(messages.subList(0, 1000), 5, packet -> packet == 120);   // 601..605 lost
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 1001, subscriber);
            assertEquals(List.of("STALE 0 GAP 606"), listener.events);

            final MarketScript.State at1000 = new MarketScript.State();
            at1000.applyAll(messages, 0, 1000);
            snapshotUntilRecovered(snapshots, subscriber,
                id -> StreamPublisher.snapshot(PARTITION, id, incremental.sessionId(), at1000, 1000));
            incremental.send(messages.subList(1000, 2000), 5);
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 2001, subscriber);

            final MarketScript.State all = new MarketScript.State();
            all.applyAll(messages, 0, messages.size());
            assertEquals(all.dump(), listener.books.dump());
            assertTrue(listener.clean());
            assertEquals(1, subscriber.counters().recoveries());
            assertEquals(1, subscriber.counters().staleEvents(StaleReason.GAP));
        }
    }

    @Test
    void snapshotLossAbandonsTheAttemptAndTheNextSnapshotRecovers()
    {
        final String channel = channel(40707);
        final int base = 2400;
        final List<byte[]> messages = MarketScript.generate(4, 1500, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (StreamPublisher incremental = media.incremental(channel, base, PARTITION);
            StreamPublisher snapshots = media.snapshots(channel, base, PARTITION);
            FeedSubscriber late = subscriber(channel, base, listener, new FeedSubscriber.Context()))
        {
            TestMedia.awaitConnected(late, incremental.publication());
            incremental.nextSequence(501);
            incremental.send(messages.subList(500, 1000), 5);
            pollUntil(() -> late.expectedSequence(PARTITION) == 1001, late);

            final MarketScript.State at1000 = new MarketScript.State();
            at1000.applyAll(messages, 0, 1000);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!snapshots.trySend(
                StreamPublisher.snapshot(PARTITION, 1, incremental.sessionId(), at1000, 1000), 4, p -> p == 2))
            {
                pollFor(20, late);
                assertTrue(System.nanoTime() < deadline, "snapshot stream never subscribed");
            }
            pollUntil(() -> late.counters().snapshotGaps() == 1, late);
            pollFor(50, late);
            assertTrue(late.isStale(PARTITION));
            assertEquals(1, late.counters().recoveryAttemptsAbandoned());
            assertEquals("BEGIN 0 1 1000", listener.events.get(1));

            snapshotUntilRecovered(snapshots, late,
                id -> StreamPublisher.snapshot(PARTITION, id, incremental.sessionId(), at1000, 1000));
            incremental.send(messages.subList(1000, 1500), 5);
            pollUntil(() -> late.expectedSequence(PARTITION) == 1501, late);

            final MarketScript.State all = new MarketScript.State();
            all.applyAll(messages, 0, messages.size());
            assertEquals(all.dump(), listener.books.dump());
            assertTrue(listener.clean());
            assertEquals(1, late.counters().recoveries());
        }
    }

    @Test
    void bufferOverflowIsCountedAndALaterSnapshotRecovers()
    {
        final String channel = channel(40709);
        final int base = 2500;
        final List<byte[]> messages = MarketScript.generate(5, 8000, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        final FeedSubscriber.Context options = new FeedSubscriber.Context()
            .recoveryBufferBytes(FeedSubscriber.Context.MIN_RECOVERY_BUFFER_BYTES);
        try (StreamPublisher incremental = media.incremental(channel, base, PARTITION);
            StreamPublisher snapshots = media.snapshots(channel, base, PARTITION);
            FeedSubscriber late = subscriber(channel, base, listener, options))
        {
            TestMedia.awaitConnected(late, incremental.publication());
            incremental.nextSequence(1001);
            for (int from = 1000; from < 7000; from += 500)
            {
                incremental.send(messages.subList(from, from + 500), 5);
                final long next = from + 501;
                pollUntil(() -> late.expectedSequence(PARTITION) == next, late);
            }
            assertTrue(late.counters().recoveryBufferOverflows() > 0);
            assertTrue(listener.events.contains("STALE 0 RECOVERY_BUFFER_OVERFLOW " +
                listener.events.get(listener.events.size() - 1).split(" ")[3]));

            // A snapshot from before the buffer's restart point cannot be used.
            final MarketScript.State at1000 = new MarketScript.State();
            at1000.applyAll(messages, 0, 1000);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!snapshots.trySend(
                StreamPublisher.snapshot(PARTITION, 1, incremental.sessionId(), at1000, 1000), 4, p -> false))
            {
                pollFor(20, late);
                assertTrue(System.nanoTime() < deadline, "snapshot stream never subscribed");
            }
            pollUntil(() -> late.counters().snapshotsIgnored() == 1, late);

            final MarketScript.State at7000 = new MarketScript.State();
            at7000.applyAll(messages, 0, 7000);
            snapshotUntilRecovered(snapshots, late,
                id -> StreamPublisher.snapshot(PARTITION, id, incremental.sessionId(), at7000, 7000));
            incremental.send(messages.subList(7000, 8000), 5);
            pollUntil(() -> late.expectedSequence(PARTITION) == 8001, late);

            final MarketScript.State all = new MarketScript.State();
            all.applyAll(messages, 0, messages.size());
            assertEquals(all.dump(), listener.books.dump());
            assertTrue(listener.clean());
        }
    }

    @Test
    void newPublicationMakesStaleAndOnlyItsOwnSnapshotsRecover()
    {
        final String channel = channel(40711);
        final int base = 2600;
        final List<byte[]> messages = MarketScript.generate(6, 1500, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        try (StreamPublisher snapshots = media.snapshots(channel, base, PARTITION);
            FeedSubscriber subscriber = subscriber(channel, base, listener, new FeedSubscriber.Context()))
        {
            final int oldSessionId;
            try (StreamPublisher first = media.incremental(channel, base, PARTITION))
            {
                oldSessionId = first.sessionId();
                TestMedia.awaitConnected(subscriber, first.publication());
                first.send(messages.subList(0, 1000), 5);
                pollUntil(() -> subscriber.expectedSequence(PARTITION) == 1001, subscriber);
                assertFalse(subscriber.isStale(PARTITION));
            }

            try (StreamPublisher restarted = media.incremental(channel, base, PARTITION))
            {
                restarted.nextSequence(1001);   // the restarted fanout continues its persisted sequence
                pollUntil(() -> restarted.publication().isConnected(), subscriber);
                restarted.send(messages.subList(1000, 1200), 5);
                pollUntil(() -> subscriber.expectedSequence(PARTITION) == 1201 && subscriber.isStale(PARTITION),
                    subscriber);
                assertTrue(listener.events.contains("STALE 0 NEW_PUBLICATION 1001"), listener.events.toString());

                final MarketScript.State at1200 = new MarketScript.State();
                at1200.applyAll(messages, 0, 1200);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (!snapshots.trySend(
                    StreamPublisher.snapshot(PARTITION, 1, oldSessionId, at1200, 1200), 4, p -> false))
                {
                    pollFor(20, subscriber);
                    assertTrue(System.nanoTime() < deadline, "snapshot stream never subscribed");
                }
                pollUntil(() -> subscriber.counters().snapshotsIgnored() == 1, subscriber);
                assertTrue(subscriber.isStale(PARTITION));

                snapshotUntilRecovered(snapshots, subscriber,
                    id -> StreamPublisher.snapshot(PARTITION, id, restarted.sessionId(), at1200, 1200));
                restarted.send(messages.subList(1200, 1500), 5);
                pollUntil(() -> subscriber.expectedSequence(PARTITION) == 1501, subscriber);

                final MarketScript.State all = new MarketScript.State();
                all.applyAll(messages, 0, messages.size());
                assertEquals(all.dump(), listener.books.dump());
                assertTrue(listener.clean());
                assertEquals(1, subscriber.counters().staleEvents(StaleReason.NEW_PUBLICATION));
            }
        }
    }

    @Test
    void silentStreamIsReportedAndActiveAgainWhenDataResumes()
    {
        final String channel = channel(40713);
        final int base = 2700;
        final List<byte[]> messages = MarketScript.generate(7, 200, INSTRUMENTS, false);
        final BookAndEventListener listener = new BookAndEventListener();
        final FeedSubscriber.Context options = new FeedSubscriber.Context()
            .silentTimeoutNs(TimeUnit.MILLISECONDS.toNanos(300));
        try (StreamPublisher incremental = media.incremental(channel, base, PARTITION);
            FeedSubscriber subscriber = subscriber(channel, base, listener, options))
        {
            TestMedia.awaitConnected(subscriber, incremental.publication());
            incremental.send(messages.subList(0, 100), 5);
            pollUntil(() -> subscriber.expectedSequence(PARTITION) == 101, subscriber);
            pollFor(150, subscriber);
            assertEquals(List.of(), listener.events, "not silent before the timeout");

            pollUntil(() -> subscriber.isSilent(PARTITION), subscriber);
            assertEquals(List.of("SILENT 0", "STALE 0 SILENT 101"), listener.events);
            assertEquals(1, subscriber.counters().silentStreams());

            // Re-subscribed: heartbeats reach the new subscription once it is connected.
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (subscriber.isSilent(PARTITION))
            {
                incremental.heartbeat();
                pollFor(50, subscriber);
                assertTrue(System.nanoTime() < deadline, "never active again");
            }
            assertEquals(List.of("SILENT 0", "STALE 0 SILENT 101", "ACTIVE 0"), listener.events);
        }
    }

    @Test
    void shouldRejectBadOptionsWithAClearMessage()
    {
        final String channel = channel(40715);
        final IllegalArgumentException small = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> subscriber(channel, 2800, new BookAndEventListener(), new FeedSubscriber.Context().recoveryBufferBytes(10)));
        assertTrue(small.getMessage().contains("recovery buffer"), small.getMessage());
        final IllegalArgumentException clash = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> subscriber(channel, 2800, new BookAndEventListener(), new FeedSubscriber.Context().snapshotStreamIdBase(2800)));
        assertTrue(clash.getMessage().contains("snapshot stream id"), clash.getMessage());
        final IllegalArgumentException timeout = org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () -> subscriber(channel, 2800, new BookAndEventListener(), new FeedSubscriber.Context().silentTimeoutNs(0)));
        assertTrue(timeout.getMessage().contains("silent timeout"), timeout.getMessage());
    }
}
