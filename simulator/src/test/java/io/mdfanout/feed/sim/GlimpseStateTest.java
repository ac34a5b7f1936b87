package io.mdfanout.feed.sim;

import io.mdfanout.testing.AllocationWindows;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static java.nio.ByteOrder.BIG_ENDIAN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The GLIMPSE state's spin: cut anywhere between packets, the spin then the feed from its End of Snapshot give the
 * whole session's book; replaced, executed and cancelled orders appear as they stand; bad input is counted, never
 * thrown.
 */
class GlimpseStateTest
{
    private static final long SEED = 7;
    private static final int SYMBOLS = 8;
    private static final long MESSAGES = 6_000;

    private final SimulatorCounters counters = SimulatorCounters.create();
    private final GlimpseState state = new GlimpseState(4, counters.glimpseInconsistentMessages());

    @AfterEach
    void tearDown()
    {
        counters.close();
    }

    @Test
    void aSnapshotAtAnyCutThenTheFeedFromItsEndOfSnapshotGivesTheWholeSessionsBook()
    {
        final String expected = ItchBookReplay.sessionDump(SEED, SYMBOLS, MESSAGES);
        assertTrue(expected.length() > 100, "the session ends with orders resting");

        final MoldUdp64Packetizer packetizer = new MoldUdp64Packetizer(
            "STATE", 1400, 1_000_000_000L, SystemNanoClock.INSTANCE, state, counters);
        final SessionGenerator generator =
            new SessionGenerator(SEED, new SessionConfig().symbols(SYMBOLS).messageCount(MESSAGES));
        final ItchEvent event = new ItchEvent();

        checkCut(0, expected);
        long sent = 0;
        int cuts = 0;
        while (generator.next(event))
        {
            packetizer.append(event);
            sent++;
            // Cuts at awkward places too: inside the opening, mid-body, the closing cross, after the last message.
            if (sent % 373 == 0 || sent == 5 || sent == 60 || sent >= MESSAGES - 3)
            {
                packetizer.flush();
                checkCut(sent, expected);
                cuts++;
            }
        }
        packetizer.endOfSession();
        assertTrue(cuts > 15);
        assertEquals(MESSAGES + 1, state.nextSequence());
        assertEquals(0, counters.glimpseInconsistentMessages().get(), "the generator's session fits the book");

        // After the end: the spin alone is the whole session's book.
        final List<byte[]> spin = spin();
        final ItchBookReplay replay = new ItchBookReplay();
        for (int i = 0; i < spin.size() - 1; i++)
        {
            replay.apply(new UnsafeBuffer(spin.get(i)), 0, spin.get(i).length);
        }
        assertEquals(expected, replay.book().dump());
        assertEquals('C', (char)spin.get(0)[11], "the last system event: end of messages");
    }

    @Test
    void ordersAppearAsTheyStandInTimePriority()
    {
        final ItchEvent event = new ItchEvent().reset();
        event.stockLocate = 3;
        event.stock("ZZZT");
        event.type = 'F';
        event.timestamp = 1_000;
        event.orderReferenceNumber = 1;
        event.side = 'B';
        event.shares = 100;
        event.price = 100_000;
        ItchEvent.setAlpha(event.attribution, "GSCO");
        apply(event);

        event.type = 'A';
        event.timestamp = 2_000;
        event.orderReferenceNumber = 3;
        event.side = 'S';
        event.shares = 200;
        event.price = 100_500;
        apply(event);

        event.type = 'A';
        event.timestamp = 2_500;
        event.orderReferenceNumber = 4;
        apply(event);

        event.type = 'E';
        event.orderReferenceNumber = 1;
        event.shares = 30;
        apply(event);

        event.type = 'U'; // 1 -> 2: the rest of the order, re-priced, to the back of the queue
        event.timestamp = 3_000;
        event.orderReferenceNumber = 1;
        event.newOrderReferenceNumber = 2;
        event.shares = 50;
        event.price = 100_100;
        apply(event);

        event.type = 'X';
        event.orderReferenceNumber = 3;
        event.shares = 50;
        apply(event);

        event.type = 'D';
        event.orderReferenceNumber = 4;
        apply(event);

        event.type = 'C'; // executes at its own price; the order keeps its price
        event.orderReferenceNumber = 2;
        event.shares = 10;
        event.price = 99_000;
        apply(event);

        final List<byte[]> spin = spin();
        assertEquals(3, spin.size(), "two open orders, then End of Snapshot");
        assertEquals(state.lastSnapshotMessages(), spin.size());

        final UnsafeBuffer first = new UnsafeBuffer(spin.get(0));
        assertEquals(36, spin.get(0).length);
        assertEquals('A', (char)first.getByte(0));
        assertEquals(3, first.getShort(1, BIG_ENDIAN));
        assertEquals(3, first.getLong(11, BIG_ENDIAN));
        assertEquals('S', (char)first.getByte(19));
        assertEquals(150, first.getInt(20, BIG_ENDIAN));
        assertEquals("ZZZT    ", first.getStringWithoutLengthAscii(24, 8));
        assertEquals(100_500, first.getInt(32, BIG_ENDIAN));

        final UnsafeBuffer second = new UnsafeBuffer(spin.get(1));
        assertEquals(40, spin.get(1).length, "added by F: spun as F");
        assertEquals('F', (char)second.getByte(0));
        assertEquals(3_000, second.getInt(7, BIG_ENDIAN), "the replace's timestamp");
        assertEquals(2, second.getLong(11, BIG_ENDIAN), "the new reference number");
        assertEquals('B', (char)second.getByte(19), "the original's side");
        assertEquals(40, second.getInt(20, BIG_ENDIAN), "50 replaced, 10 executed since");
        assertEquals("ZZZT    ", second.getStringWithoutLengthAscii(24, 8), "the original's stock");
        assertEquals(100_100, second.getInt(32, BIG_ENDIAN), "the new price, not the execution's");
        assertEquals("GSCO", second.getStringWithoutLengthAscii(36, 4), "the original's attribution");

        assertEquals(GlimpseState.END_OF_SNAPSHOT_LENGTH, spin.get(2).length);
        assertEquals("G                   1", new String(spin.get(2), StandardCharsets.US_ASCII),
            "apply() alone does not move the sequence: only packets do");
        assertEquals(0, counters.glimpseInconsistentMessages().get());
    }

    @Test
    void messagesThatDoNotFitTheBookAreCountedAndSkipped()
    {
        final ItchEvent event = new ItchEvent().reset();
        event.stockLocate = 1;
        event.stock("AAA");
        event.type = 'E';
        event.orderReferenceNumber = 99;
        event.shares = 1;
        apply(event); // unknown order

        event.type = 'A';
        event.orderReferenceNumber = 5;
        event.side = 'B';
        event.shares = 10;
        event.price = 100;
        apply(event);
        apply(event); // added twice

        event.type = 'X';
        event.shares = 11; // more than it has: the order is gone all the same
        apply(event);

        final UnsafeBuffer truncated = new UnsafeBuffer(new byte[64]);
        event.type = 'A';
        final int length = ItchEncoder.encode(event, truncated, 0);
        state.apply(truncated, 0, length - 1);
        state.apply(truncated, 0, 0);

        assertEquals(5, counters.glimpseInconsistentMessages().get());
        assertEquals(0, state.orderCount());
        assertEquals(1, spin().size(), "only End of Snapshot");
    }

    /** The sender's steady-state cost: keeping the state from its packets and polling for requests. */
    @Test
    void keepingTheStateAndPollingAllocateNothingWhileNoSnapshotIsPending() throws Exception
    {
        final GlimpseSnapshots snapshots = new GlimpseSnapshots(state);
        final SessionGenerator generator = new SessionGenerator(3, new SessionConfig().symbols(50).messageCount(0));
        final MoldUdp64Packetizer packetizer = new MoldUdp64Packetizer(
            "ALLOC", 1400, 1_000_000_000L, SystemNanoClock.INSTANCE, state, counters);
        final ItchEvent event = new ItchEvent();
        final AllocationWindows.Window send = () ->
        {
            for (int i = 0; i < 500_000; i++)
            {
                generator.next(event);
                packetizer.append(event);
                if ((i & 63) == 0)
                {
                    packetizer.flush();
                    snapshots.poll();
                }
            }
        };
        for (int i = 0; i < 10; i++)
        {
            send.run(); // warm up: the JIT settles and the stores reach the session's size
        }
        AllocationWindows.assertOneWindowAllocatesNothing("applying 500,000 messages", AllocationWindows.WINDOWS, send);
        assertTrue(state.orderCount() > 1_000, "orders rest: " + state.orderCount());
        assertEquals(0, counters.glimpseInconsistentMessages().get());
    }

    @Test
    void endOfSnapshotIsTwentyDigitsRightJustified()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[GlimpseState.END_OF_SNAPSHOT_LENGTH]);
        GlimpseState.writeEndOfSnapshot(buffer, 0, 1_234_567_890_123L);
        assertEquals("G       1234567890123", buffer.getStringWithoutLengthAscii(0, 21));
        GlimpseState.writeEndOfSnapshot(buffer, 0, Long.MAX_VALUE);
        assertEquals("G 9223372036854775807", buffer.getStringWithoutLengthAscii(0, 21));
    }

    private void apply(final ItchEvent event)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        final int length = ItchEncoder.encode(event, buffer, 0);
        state.apply(buffer, 0, length);
    }

    /** After {@code sent} messages: the spin, then the feed from its End of Snapshot, gives the whole book. */
    private void checkCut(final long sent, final String expected)
    {
        final List<byte[]> spin = spin();
        final byte[] end = spin.get(spin.size() - 1);
        assertEquals('G', (char)end[0]);
        final long nextSequence = Long.parseLong(new String(end, 1, 20, StandardCharsets.US_ASCII).trim());
        assertEquals(sent + 1, nextSequence, "End of Snapshot after " + sent + " messages");

        final ItchBookReplay replay = new ItchBookReplay();
        for (int i = 0; i < spin.size() - 1; i++)
        {
            replay.apply(new UnsafeBuffer(spin.get(i)), 0, spin.get(i).length);
        }
        replay.applySession(SEED, SYMBOLS, MESSAGES, nextSequence);
        assertEquals(expected, replay.book().dump(),
            "snapshot after " + sent + " messages, then the feed from " + nextSequence);
    }

    /** The spin's messages, unframed, checking the framing on the way. */
    private List<byte[]> spin()
    {
        final ExpandableArrayBuffer out = new ExpandableArrayBuffer(16);
        final long expectedLength = state.snapshotLength();
        final int length = state.writeSnapshot(out, 5);
        assertTrue(length <= expectedLength, length + " <= " + expectedLength);
        final List<byte[]> messages = new ArrayList<>();
        int position = 5;
        while (position < 5 + length)
        {
            final int packetLength = out.getShort(position, BIG_ENDIAN) & 0xFFFF;
            assertEquals('S', (char)out.getByte(position + 2), "Sequenced Data");
            final byte[] message = new byte[packetLength - 1];
            out.getBytes(position + 3, message);
            messages.add(message);
            position += 2 + packetLength;
        }
        assertEquals(5 + length, position, "whole packets");
        return messages;
    }
}
