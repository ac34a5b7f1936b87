package io.mdfanout.fanout.state;

import io.mdfanout.fanout.BookModel;
import io.mdfanout.fanout.StateMessages;
import io.mdfanout.sbe.GapReason;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.testing.AllocationWindows;
import io.mdfanout.wire.MarketSession;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The partition state on its own: book semantics, persistence, crash recovery, limits, allocation. */
final class PartitionStateTest
{
    private static final int PARTITION = 2;
    private static final int MAX_ORDERS = 64;
    private static final String[] INSTRUMENT_TEMPLATES = {"11", "12", "13", "16"};

    @TempDir
    Path directory;

    private final List<Throwable> errors = new ArrayList<>();
    private final StateMessages messages = new StateMessages();
    private final List<PartitionState> opened = new ArrayList<>();
    private long streamSequence;
    private long ringPosition;

    @AfterEach
    void tearDown()
    {
        opened.forEach(PartitionState::close);
    }

    private PartitionState open(final Path stateDirectory, final int maxOrders)
    {
        final PartitionState state = PartitionState.open(
            stateDirectory, PARTITION, maxOrders, new PartitionStateCounters(newCountersManager(), PARTITION), errors::add);
        opened.add(state);
        streamSequence = state.lastAppliedStreamSequence();
        ringPosition = state.ringPosition();
        return state;
    }

    private PartitionState openPretouched(final Path stateDirectory, final int maxOrders)
    {
        final PartitionState state = PartitionState.open(stateDirectory, PARTITION, maxOrders,
            new PartitionStateCounters(newCountersManager(), PARTITION), errors::add, true);
        opened.add(state);
        streamSequence = state.lastAppliedStreamSequence();
        ringPosition = state.ringPosition();
        return state;
    }

    private static CountersManager newCountersManager()
    {
        final int valuesLength = 4 * 1024;
        return new CountersManager(
            new UnsafeBuffer(ByteBuffer.allocateDirect(
                valuesLength * (CountersReader.METADATA_LENGTH / CountersReader.COUNTER_LENGTH))),
            new UnsafeBuffer(ByteBuffer.allocateDirect(valuesLength)));
    }

    /** Apply the last encoded message to the state and to the reference model. */
    private void apply(final PartitionState state, final BookModel model)
    {
        ringPosition += 64;
        state.apply(++streamSequence, ringPosition, messages.templateId, messages.buffer, 0, messages.length);
        if (null != model)
        {
            model.apply(messages.bytes());
        }
    }

    /** Read the whole state back through the enumeration API into the reference model's form. */
    static BookModel dump(final PartitionState state)
    {
        final BookModel model = new BookModel();
        final UnsafeBuffer copy = new UnsafeBuffer(new byte[128]);
        for (int kind = 0; kind < PartitionState.MARKET_KINDS; kind++)
        {
            final int length = state.marketMessageLength(kind);
            if (length > 0)
            {
                state.copyMarketMessage(kind, copy, 0);
                model.putStateMessage(java.util.Arrays.copyOf(copy.byteArray(), length));
            }
        }
        int instruments = 0;
        int orders = 0;
        for (int id = state.nextInstrumentWithState(1); id != PartitionState.NONE; id = state.nextInstrumentWithState(id + 1))
        {
            instruments++;
            for (int kind = 0; kind < PartitionState.INSTRUMENT_KINDS; kind++)
            {
                final int length = state.instrumentMessageLength(id, kind);
                if (length > 0)
                {
                    state.copyInstrumentMessage(id, kind, copy, 0);
                    model.putStateMessage(java.util.Arrays.copyOf(copy.byteArray(), length));
                }
            }
            int count = 0;
            for (int order = state.firstOrder(id); order != PartitionState.NONE; order = state.nextOrder(order))
            {
                final byte[] attribution = new byte[4];
                new UnsafeBuffer(attribution).putInt(0, state.orderAttribution(order), java.nio.ByteOrder.LITTLE_ENDIAN);
                model.putOrder(state.orderId(order), id, state.orderPrice(order), state.orderShares(order),
                    state.orderSide(order), new String(attribution, StandardCharsets.US_ASCII));
                count++;
            }
            assertEquals(state.instrumentOrderCount(id), count, "order list of instrument " + id);
            orders += count;
        }
        assertEquals(state.instrumentCount(), instruments, "instrument count");
        assertEquals(state.orderCount(), orders, "order count");
        return model;
    }

    @Test
    void appliesItchBookSemanticsAndKeepsTheLastStateMessages()
    {
        final PartitionState state = open(directory, MAX_ORDERS);
        final BookModel model = new BookModel();
        messages.systemEvent(SystemEventCode.START_OF_MESSAGES); apply(state, model);
        messages.systemEvent(SystemEventCode.START_OF_MARKET_HOURS); apply(state, model);
        messages.mwcbStatus((byte)'1'); apply(state, model);
        messages.directory(5, "AAPL    "); apply(state, model);
        messages.tradingStatus(5, false); apply(state, model);
        messages.tradingStatus(5, true); apply(state, model);
        messages.addOrder(5, 100, true, 1_000_000, 300); apply(state, model);
        messages.addOrderAttributed(5, 101, false, 1_010_000, 200, "GSCO"); apply(state, model);
        messages.addOrder(9, 102, true, 990_000, 50); apply(state, model);
        messages.executed(5, 100, 100); apply(state, model);
        messages.cancel(5, 101, 50); apply(state, model);
        messages.executedWithPrice(5, 101, 150); apply(state, model); // 101 leaves
        messages.replace(9, 102, 103, 995_000, 70); apply(state, model);
        messages.trade(5); apply(state, model);
        messages.addOrder(7, 104, false, 1, 10); apply(state, model);
        messages.delete(7, 104); apply(state, model); // instrument 7 has no state again

        final String expected = model.toString();
        assertEquals(expected, dump(state).toString());
        assertTrue(expected.contains("order 100 B 1000000 200 '    '"), expected);
        assertTrue(expected.contains("order 103 B 995000 70"), expected);
        assertFalse(expected.contains("order 101 "), expected);
        assertEquals(2, state.orderCount());
        assertEquals(2, state.instrumentCount(), "instruments 5 and 9");
        assertEquals(PartitionState.NONE, state.nextInstrumentWithState(10));
        assertEquals(16, state.lastAppliedStreamSequence());
        assertEquals(16 * 64, state.ringPosition());

        messages.executed(5, 999, 1); apply(state, model);
        messages.delete(5, 998); apply(state, model);
        messages.replace(5, 997, 996, 1, 1); apply(state, model);
        messages.addOrder(5, 100, true, 1, 1); apply(state, model); // duplicate id
        messages.addOrder(0, 200, true, 1, 1); apply(state, model); // market-wide instrument cannot hold orders
        assertEquals(3, stateCounter(state, "unknown"));
        assertEquals(expected, dump(state).toString());
        assertEquals(List.of(), errors);
    }

    @Test
    void aMessageShorterThanItsTemplatesBlockIsRejectedWithoutReadingPastIt()
    {
        final PartitionState state = open(directory, 16);
        final BookModel model = new BookModel();
        messages.addOrder(5, 100, true, 1_000_000, 300); apply(state, model);

        // An order update cut short of its block (a record that skipped WireFormat.isPublishableRecord):
        // no field of it is read beyond its length, nothing changes, and it is counted.
        messages.executed(5, 100, 100);
        ringPosition += 64;
        state.apply(++streamSequence, ringPosition, messages.templateId, messages.buffer, 0, messages.length - 1);
        messages.delete(5, 100);
        ringPosition += 64;
        state.apply(++streamSequence, ringPosition, messages.templateId, messages.buffer, 0, 4); // not even a header

        assertEquals(2, stateCounter(state, "rejected"));
        assertEquals(model.toString(), dump(state).toString(), "the order is untouched");
        assertEquals(3, state.lastAppliedStreamSequence(), "both still consumed their sequence");
        assertEquals(List.of(), errors);
    }

    private long stateCounter(final PartitionState state, final String which)
    {
        return PartitionStateTestAccess.counters(state, which);
    }

    /**
     * The market session follows the last SystemEvent: its gauge is published with the others, a restart on the
     * state file keeps it, and the other market-wide messages do not touch it.
     */
    @Test
    void marketSessionFollowsTheLastSystemEventAndSurvivesARestart()
    {
        final PartitionState state = open(directory, MAX_ORDERS);
        assertEquals(MarketSession.UNKNOWN, state.marketSession());
        assertEquals(MarketSession.UNKNOWN.value(), stateCounter(state, "marketSession"));
        final SystemEventCode[] day = { SystemEventCode.START_OF_MESSAGES, SystemEventCode.START_OF_SYSTEM_HOURS,
            SystemEventCode.START_OF_MARKET_HOURS, SystemEventCode.END_OF_MARKET_HOURS };
        final MarketSession[] expected =
            { MarketSession.PRE_SESSION, MarketSession.PRE_MARKET, MarketSession.OPEN, MarketSession.POST_MARKET };
        for (int i = 0; i < day.length; i++)
        {
            messages.systemEvent(day[i]); apply(state, null);
            state.publishGauges();
            assertEquals(expected[i], state.marketSession(), day[i].name());
            assertEquals(expected[i].value(), stateCounter(state, "marketSession"), day[i].name());
        }
        messages.addOrder(1, 1, true, 100, 10); apply(state, null);
        state.publishGauges();
        assertEquals(MarketSession.POST_MARKET, state.marketSession());
        messages.systemEvent(SystemEventCode.END_OF_SYSTEM_HOURS); apply(state, null);
        state.close();

        final PartitionState reopened = open(directory, MAX_ORDERS);
        assertTrue(reopened.wasResumed());
        assertEquals(MarketSession.CLOSED, reopened.marketSession());
        assertEquals(MarketSession.CLOSED.value(), stateCounter(reopened, "marketSession"), "published on open");
    }

    @Test
    void anUnrecoveredGapIsKeptAsMarketStateUntilTheNextStartOfMessagesAndSurvivesARestart()
    {
        final PartitionState state = open(directory, MAX_ORDERS);
        messages.systemEvent(SystemEventCode.START_OF_MESSAGES); apply(state, null);
        messages.gapNotice(5, 9, GapReason.STALE); apply(state, null);
        assertEquals(0, state.marketMessageLength(PartitionState.UNRECOVERED_GAP),
            "a notice of possibly stale data is an event: the state lacks nothing");
        messages.addOrder(1, 1, true, 100, 10); apply(state, null);
        messages.gapNotice(20, 29, GapReason.UNRECOVERED); apply(state, null);
        final byte[] notice = new byte[messages.length];
        messages.buffer.getBytes(0, notice);
        messages.addOrder(1, 2, true, 100, 10); apply(state, null);
        state.close();

        final PartitionState reopened = open(directory, MAX_ORDERS);
        assertEquals(notice.length, reopened.marketMessageLength(PartitionState.UNRECOVERED_GAP),
            "the state lacks exchange messages 20..29: kept, for every snapshot of it, across a restart");
        final UnsafeBuffer copy = new UnsafeBuffer(new byte[notice.length]);
        reopened.copyMarketMessage(PartitionState.UNRECOVERED_GAP, copy, 0);
        assertArrayEquals(notice, copy.byteArray(), "the notice byte for byte");
        assertEquals(20, reopened.unrecoveredFromSequence(), "what every SnapshotBegin of it carries");
        assertEquals(29, reopened.unrecoveredToSequence());
        messages.systemEvent(SystemEventCode.START_OF_MESSAGES); apply(reopened, null);
        assertEquals(0, reopened.marketMessageLength(PartitionState.UNRECOVERED_GAP),
            "the exchange's next session starts whole");
        assertEquals(0, reopened.unrecoveredFromSequence());
        assertEquals(0, reopened.unrecoveredToSequence());
    }

    @Test
    void resumesAfterACleanStop()
    {
        final PartitionState state = open(directory, MAX_ORDERS);
        assertFalse(state.wasResumed());
        final BookModel model = new BookModel();
        for (int i = 1; i <= 20; i++)
        {
            messages.addOrder(1 + i % 3, i, i % 2 == 0, 1000 + i, 10 * i); apply(state, model);
        }
        messages.delete(2, 3); apply(state, model);
        final String before = dump(state).toString();
        final long lastSequence = state.lastAppliedStreamSequence();
        final long lastExchange = state.lastExchangeSequence();
        state.close();

        final PartitionState reopened = open(directory, MAX_ORDERS);
        assertTrue(reopened.wasResumed());
        assertEquals(before, dump(reopened).toString());
        assertEquals(model.toString(), before);
        assertEquals(lastSequence, reopened.lastAppliedStreamSequence());
        assertEquals(lastExchange, reopened.lastExchangeSequence());
        assertEquals(21 * 64, reopened.ringPosition());

        messages.addOrder(1, 500, true, 1, 1); apply(reopened, model);
        assertEquals(model.toString(), dump(reopened).toString(), "pool free list and index still consistent");
    }

    /** Touching every page at open writes each byte back as it was: a resumed state is unchanged by it. */
    @Test
    void pretouchLeavesNewAndResumedStateIntact()
    {
        final PartitionState state = openPretouched(directory, MAX_ORDERS);
        assertFalse(state.wasResumed());
        final BookModel model = new BookModel();
        for (int i = 1; i <= 50; i++)
        {
            messages.addOrder(1 + i % 5, i, i % 2 == 0, 2000 + i, 7 * i); apply(state, model);
        }
        final String before = dump(state).toString();
        state.close();

        final PartitionState reopened = openPretouched(directory, MAX_ORDERS);
        assertTrue(reopened.wasResumed());
        assertEquals(before, dump(reopened).toString());
        assertEquals(model.toString(), before);
        messages.delete(3, 2); apply(reopened, model);
        assertEquals(model.toString(), dump(reopened).toString());
    }

    @Test
    void refusesAFileWrittenWithAnotherLayoutNamingTheFileAndTheOption()
    {
        open(directory, MAX_ORDERS).close();
        final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> open(directory, 128));
        assertTrue(ex.getMessage().contains(PartitionState.stateFile(directory, PARTITION).toString()), ex.getMessage());
        assertTrue(ex.getMessage().contains("--max-orders"), ex.getMessage());
        assertThrows(IllegalArgumentException.class, () -> open(directory, 0));
    }

    @Test
    void rejectsAddsWhenThePoolIsFullAndReportsOnce()
    {
        final PartitionState state = open(directory, 2);
        final BookModel model = new BookModel();
        messages.addOrder(1, 1, true, 1, 1); apply(state, model);
        messages.addOrder(1, 2, true, 1, 1); apply(state, model);
        messages.addOrder(1, 3, true, 1, 1); apply(state, null);
        messages.addOrder(1, 4, true, 1, 1); apply(state, null);
        assertEquals(2, stateCounter(state, "poolFull"));
        assertEquals(1, errors.size());
        assertTrue(errors.get(0).getMessage().contains("--max-orders"));
        messages.delete(1, 1); apply(state, model);
        messages.addOrder(1, 5, true, 1, 1); apply(state, model); // the freed entry is reused
        assertEquals(model.toString(), dump(state).toString());
        assertEquals(4 + 2, state.lastAppliedStreamSequence(), "rejected messages still consume their sequence");
    }

    /**
     * kill -9 at every store of a message: reopening must show exactly the state before the message,
     * or after it once the commit marker was written. Uses order ids that share a home slot in the
     * index, so the delete shifts entries back and the replace both deletes and inserts.
     */
    @Test
    void recoversFromAKillAtEveryStepOfADeleteAndAReplace() throws IOException
    {
        final StateLayout layout = new StateLayout(MAX_ORDERS);
        final long[] colliding = collidingOrderIds(layout, 4);

        final Consumer<PartitionState> setUp = (state) ->
        {
            messages.resetExchangeSequence();
            messages.directory(3, "MSFT    "); apply(state, null);
            for (int i = 0; i < colliding.length; i++)
            {
                messages.addOrder(3 + i % 2, colliding[i], i % 2 == 0, 100 + i, 10 + i); apply(state, null);
            }
        };

        int steps = 0;
        steps += crashAtEveryStep(layout, setUp, () -> messages.delete(3, colliding[0]), "delete");
        steps += crashAtEveryStep(layout, setUp, () -> messages.replace(4, colliding[1], 777, 555, 66), "replace");
        assertTrue(steps > 20, "steps exercised: " + steps);
    }

    /**
     * The same for adds, whose new slot's fields are stored without undo entries: one from the pool's high water
     * and one from the free list (after a delete), each colliding in the index with the orders there.
     */
    @Test
    void recoversFromAKillAtEveryStepOfAnAdd() throws IOException
    {
        final StateLayout layout = new StateLayout(MAX_ORDERS);
        final long[] colliding = collidingOrderIds(layout, 5);

        final Consumer<PartitionState> setUp = (state) ->
        {
            messages.resetExchangeSequence();
            messages.directory(3, "MSFT    "); apply(state, null);
            for (int i = 0; i < 3; i++)
            {
                messages.addOrder(3, colliding[i], i % 2 == 0, 100 + i, 10 + i); apply(state, null);
            }
        };
        // Two slots freed: the head of the free list links to the other, a link the add must log.
        final Consumer<PartitionState> setUpWithFreeSlots = setUp.andThen((state) ->
        {
            messages.delete(3, colliding[1]); apply(state, null);
            messages.delete(3, colliding[0]); apply(state, null);
        });

        int steps = 0;
        steps += crashAtEveryStep(layout, setUp, () -> messages.addOrder(3, colliding[3], false, 99, 7), "add");
        steps += crashAtEveryStep(layout, setUpWithFreeSlots,
            () -> messages.addOrder(3, colliding[4], true, 98, 8), "add to a freed slot");
        assertTrue(steps > 10, "steps exercised: " + steps);
    }

    private int crashAtEveryStep(final StateLayout layout, final Consumer<PartitionState> setUp, final Runnable encode,
        final String what) throws IOException
    {
        // The state after the message, and the number of steps it takes, from an uninterrupted run.
        final Path reference = Files.createTempDirectory(directory, what);
        final PartitionState referenceState = open(reference, MAX_ORDERS);
        setUp.accept(referenceState);
        final byte[] beforeBytes = comparableBytes(referenceState, layout);
        final String before = dump(referenceState).toString();
        encode.run();
        apply(referenceState, null);
        final byte[] afterBytes = comparableBytes(referenceState, layout);
        final String after = dump(referenceState).toString();
        assertNotEquals(before, after);

        int step = 1;
        while (true)
        {
            final Path attempt = Files.createTempDirectory(directory, what + step);
            final PartitionState state = open(attempt, MAX_ORDERS);
            setUp.accept(state);
            encode.run();
            state.crashAtStep(step);
            boolean crashed = false;
            try
            {
                apply(state, null);
            }
            catch (final UndoLog.SimulatedCrash expected)
            {
                crashed = true;
            }
            state.close(); // the mapping goes; whatever was stored stays in the file, as after kill -9

            final PartitionState recovered = open(attempt, MAX_ORDERS);
            final String recoveredDump = dump(recovered).toString();
            final byte[] recoveredBytes = comparableBytes(recovered, layout);
            recovered.close();
            if (!crashed)
            {
                assertEquals(after, recoveredDump, what + " without a crash");
                return step;
            }
            // Only a crash after the commit marker, before the undo log was emptied, keeps the message.
            final boolean committed = recoveredDump.equals(after);
            assertTrue(committed || recoveredDump.equals(before),
                what + " crash at step " + step + ":\n" + recoveredDump + "\nbefore:\n" + before);
            assertArrayEquals(committed ? afterBytes : beforeBytes, recoveredBytes, what + " bytes, crash at step " + step);
            step++;
        }
    }

    @Test
    void aCorruptLinkInTheFileThrowsBeforeAnyAccessOutsideIt() throws IOException
    {
        final StateLayout layout = new StateLayout(MAX_ORDERS);
        final int slot = new OrderIndex(new StateMemory(new UnsafeBuffer(ByteBuffer.allocateDirect(8))), null, layout)
            .home(100);
        final int firstOrder = layout.orderOffset(0);

        // Each corruption names, in the file, a place outside it: a pool index far past the pool, an
        // instrument id past the instruments, a next link past the pool. StateMemory reads and writes
        // by address without a check of its own, so only the check where the number becomes an offset
        // stands between these and memory beyond the mapping (without it the JVM would crash or write
        // over other memory).
        final long[][] corruptions = {
            { layout.indexSlotOffset(slot) + 8, 0x7FFF_0000L, 0 },                // order 100's pool index
            { firstOrder + StateLayout.ORDER_INSTRUMENT, 1_000_000L, 1 },         // order 100's instrument
            { firstOrder + StateLayout.ORDER_NEXT, 0x4000_0000L, 2 },             // order 100's next order
        };
        final String[] named = { "pool index 2147418111", "instrument id 1000000", "pool index 1073741823" };
        for (int i = 0; i < corruptions.length; i++)
        {
            final Path stateDirectory = Files.createDirectory(directory.resolve("corrupt-" + i));
            final PartitionState state = open(stateDirectory, MAX_ORDERS);
            messages.addOrder(5, 100, true, 1_000, 10); apply(state, null);
            messages.addOrder(5, 101, false, 2_000, 20); apply(state, null);
            assertEquals(0, state.firstOrder(5), "order 100 is the pool's first entry");
            state.close();
            opened.remove(state);

            try (java.nio.channels.FileChannel file = java.nio.channels.FileChannel.open(
                state.file(), java.nio.file.StandardOpenOption.WRITE))
            {
                final ByteBuffer word = ByteBuffer.allocate(8).order(java.nio.ByteOrder.nativeOrder());
                word.putLong(0, corruptions[i][1]);
                file.write(word, corruptions[i][0]);
            }

            final PartitionState reopened = open(stateDirectory, MAX_ORDERS);
            messages.delete(5, 100);
            final IndexOutOfBoundsException ex =
                assertThrows(IndexOutOfBoundsException.class, () -> apply(reopened, null), "corruption " + i);
            assertTrue(ex.getMessage().contains(named[i]) && ex.getMessage().contains("state file is corrupt"),
                ex.getMessage());
        }
    }

    /** Every byte of the file that holds state (all but the undo log and its header), for the touched instruments. */
    private static byte[] comparableBytes(final PartitionState state, final StateLayout layout) throws IOException
    {
        try (RandomAccessFile file = new RandomAccessFile(state.file().toFile(), "r"))
        {
            final byte[] header = new byte[StateLayout.UNDO_LOG_OFFSET];
            file.readFully(header);
            java.util.Arrays.fill(
                header, StateLayout.UNDO_COUNT_OFFSET, StateLayout.UNDO_SAVED_LAST_EXCHANGE_TIMESTAMP_OFFSET + 8, (byte)0);
            final byte[] poolAndIndex = new byte[layout.instrumentsOffset - layout.poolOffset];
            file.seek(layout.poolOffset);
            file.readFully(poolAndIndex);
            maskFreeSlots(poolAndIndex, layout);
            final byte[] instruments = new byte[8 * StateLayout.INSTRUMENT_ENTRY_LENGTH];
            file.seek(layout.instrumentOffset(0));
            file.readFully(instruments);
            final byte[] all = new byte[header.length + poolAndIndex.length + instruments.length];
            System.arraycopy(header, 0, all, 0, header.length);
            System.arraycopy(poolAndIndex, 0, all, header.length, poolAndIndex.length);
            System.arraycopy(instruments, 0, all, header.length + poolAndIndex.length, instruments.length);
            return all;
        }
    }

    /**
     * A free pool slot's fields other than its free-list link are never read, and an add writes them without undo
     * entries (rolled back, it leaves them behind in a slot nothing reaches): zero them, so that the bytes compared
     * are the ones recovery must restore. Live slots are those the index names.
     */
    private static void maskFreeSlots(final byte[] poolAndIndex, final StateLayout layout)
    {
        final java.nio.ByteBuffer bytes = java.nio.ByteBuffer.wrap(poolAndIndex).order(java.nio.ByteOrder.nativeOrder());
        final boolean[] live = new boolean[layout.maxOrders];
        final int index = layout.indexOffset - layout.poolOffset;
        for (int slot = 0; slot < layout.indexCapacity; slot++)
        {
            final long value = bytes.getLong(index + slot * StateLayout.INDEX_ENTRY_LENGTH + 8);
            if (0 != value)
            {
                live[(int)(value - 1)] = true;
            }
        }
        for (int order = 0; order < layout.maxOrders; order++)
        {
            if (!live[order])
            {
                final int at = order * StateLayout.ORDER_ENTRY_LENGTH;
                java.util.Arrays.fill(poolAndIndex, at, at + StateLayout.ORDER_NEXT, (byte)0);
            }
        }
    }

    private static long[] collidingOrderIds(final StateLayout layout, final int count)
    {
        final OrderIndex probe = new OrderIndex(new StateMemory(new UnsafeBuffer(ByteBuffer.allocateDirect(8))), null, layout);
        final long[] ids = new long[count];
        final int home = probe.home(1000);
        int found = 0;
        for (long id = 1000; found < count; id++)
        {
            if (probe.home(id) == home)
            {
                ids[found++] = id;
            }
        }
        return ids;
    }

    @Test
    void appliesMessagesWithoutAllocating() throws Exception
    {
        final PartitionState state = open(directory, 4096);
        for (int i = 1; i <= 100; i++)
        {
            messages.addOrder(1 + i % 50, i, true, 100, 100); apply(state, null);
        }
        final long[] orderId = { 1_000_000 };
        // Up to ten windows: the first ones warm the JIT up.
        AllocationWindows.assertOneWindowAllocatesNothing("applying 100,000 messages", 10, () ->
        {
            for (int i = 0; i < 20_000; i++)
            {
                final long instrument = 1 + i % 50;
                final long id = orderId[0];
                messages.addOrder(instrument, id, i % 2 == 0, 100 + i % 7, 100); apply(state, null);
                messages.executed(instrument, id, 10); apply(state, null);
                messages.replace(instrument, id, id + 1, 101, 50); apply(state, null);
                messages.tradingStatus(instrument, i % 2 == 0); apply(state, null);
                messages.delete(instrument, id + 1); apply(state, null);
                orderId[0] += 2;
            }
        });
        assertEquals(100, state.orderCount());
        assertEquals(List.of(), errors);
    }
}
