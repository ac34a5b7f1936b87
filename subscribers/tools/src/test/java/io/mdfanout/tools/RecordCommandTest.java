package io.mdfanout.tools;

import io.aeron.Aeron;
import io.aeron.ExclusivePublication;
import io.aeron.driver.MediaDriver;
import io.aeron.driver.ThreadingMode;
import io.mdfanout.sbe.AddOrderEncoder;
import io.mdfanout.sbe.GapNoticeEncoder;
import io.mdfanout.sbe.GapReason;
import io.mdfanout.sbe.InstrumentDirectoryEncoder;
import io.mdfanout.sbe.MessageHeaderEncoder;
import io.mdfanout.sbe.OrderExecutedEncoder;
import io.mdfanout.sbe.PacketHeaderEncoder;
import io.mdfanout.sbe.Side;
import io.mdfanout.sbe.SnapshotBeginEncoder;
import io.mdfanout.sbe.SnapshotEndEncoder;
import io.mdfanout.sbe.SnapshotInstrumentEncoder;
import io.mdfanout.sbe.SnapshotOrderEncoder;
import io.mdfanout.sbe.SystemEventCode;
import io.mdfanout.sbe.SystemEventEncoder;
import io.mdfanout.wire.ExitCodes;
import org.agrona.CloseHelper;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The record command run in-process against a real publisher over UDP multicast: ready file,
 * stop at END_OF_MESSAGES on every partition, exact file content, books dump, exit codes.
 */
class RecordCommandTest
{
    private static final String CHANNEL =
        "aeron:udp?endpoint=224.0.1.43:42501|interface=127.0.0.1|mtu=8192";
    private static final int STREAM_ID_BASE = 1500;

    private static MediaDriver driver;
    private static Aeron aeron;

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(8192));
    private final MessageHeaderEncoder header = new MessageHeaderEncoder();
    private final PacketHeaderEncoder packetHeader = new PacketHeaderEncoder();
    private final List<List<byte[]>> sentByPartition = List.of(new ArrayList<>(), new ArrayList<>());
    private int limit;
    private int count;

    @TempDir
    Path tempDir;

    @BeforeAll
    static void start()
    {
        driver = MediaDriver.launch(new MediaDriver.Context()
            .aeronDirectoryName(new java.io.File(System.getProperty("java.io.tmpdir"),
                "mdfanout-tools-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime()).getAbsolutePath())
            .threadingMode(ThreadingMode.SHARED)
            .sharedIdleStrategy(new BackoffIdleStrategy(10, 20, 1_000, 1_000_000))
            .publicationTermBufferLength(1024 * 1024)
            .dirDeleteOnStart(true)
            .dirDeleteOnShutdown(true));
        aeron = Aeron.connect(new Aeron.Context().aeronDirectoryName(driver.aeronDirectoryName()));
    }

    @AfterAll
    static void stop()
    {
        CloseHelper.closeAll(aeron, driver);
    }

    @Test
    void shouldRecordEveryMessageAndDumpBooksUntilEndOfMessages() throws Exception
    {
        final Path out = tempDir.resolve("messages.bin");
        final Path books = tempDir.resolve("books.txt");
        final Path ready = tempDir.resolve("ready");
        try (ExclusivePublication partition0 = aeron.addExclusivePublication(CHANNEL, STREAM_ID_BASE);
            ExclusivePublication partition1 = aeron.addExclusivePublication(CHANNEL, STREAM_ID_BASE + 1))
        {
            final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            final CompletableFuture<Integer> exitCode = runRecord(stdout,
                "--channel", CHANNEL, "--stream-id-base", Integer.toString(STREAM_ID_BASE), "--partitions", "2",
                "--out", out.toString(), "--books-out", books.toString(), "--ready-file", ready.toString(),
                "--until-end-of-messages", "--timeout-s", "20");

            awaitFile(ready, exitCode);

            offerTwoPartitionSession(partition0, partition1);

            assertEquals(ExitCodes.OK, exitCode.get(15, TimeUnit.SECONDS), stdout::toString);
            assertTrue(stdout.toString().contains("messages=8 gaps=0"), stdout.toString());

            final List<List<byte[]>> recorded = List.of(new ArrayList<>(), new ArrayList<>());
            final ByteBuffer file = ByteBuffer.wrap(Files.readAllBytes(out)).order(ByteOrder.LITTLE_ENDIAN);
            final long[] nextSequence = { 1, 1 };
            while (file.hasRemaining())
            {
                final int length = file.getInt();
                final int partition = file.getShort() & 0xFFFF;
                final long sequence = file.getLong();
                assertEquals(nextSequence[partition]++, sequence, "stream sequence of partition " + partition);
                final byte[] message = new byte[length];
                file.get(message);
                recorded.get(partition).add(message);
            }
            for (int partition = 0; partition < 2; partition++)
            {
                assertEquals(sentByPartition.get(partition).size(), recorded.get(partition).size());
                for (int i = 0; i < recorded.get(partition).size(); i++)
                {
                    assertArrayEquals(sentByPartition.get(partition).get(i), recorded.get(partition).get(i));
                }
            }

            assertEquals(
                "I 2\nB 1000000 400 2\nI 3\nS 70000 5 1\nI 4\nS 50000 10 1\n",
                new String(Files.readAllBytes(books), StandardCharsets.UTF_8));
        }
    }

    @Test
    void withoutOutReceivesChecksAndCountsEverythingAndWritesNothing() throws Exception
    {
        final Path ready = tempDir.resolve("ready-no-out");
        try (ExclusivePublication partition0 = aeron.addExclusivePublication(CHANNEL, STREAM_ID_BASE);
            ExclusivePublication partition1 = aeron.addExclusivePublication(CHANNEL, STREAM_ID_BASE + 1))
        {
            final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            final CompletableFuture<Integer> exitCode = runRecord(stdout,
                "--channel", CHANNEL, "--stream-id-base", Integer.toString(STREAM_ID_BASE), "--partitions", "2",
                "--ready-file", ready.toString(), "--until-end-of-messages", "--timeout-s", "20");
            awaitFile(ready, exitCode);

            offerTwoPartitionSession(partition0, partition1);

            assertEquals(ExitCodes.OK, exitCode.get(15, TimeUnit.SECONDS), stdout::toString);
            assertTrue(stdout.toString().contains("messages=8 gaps=0 missing=0"), stdout.toString());
            assertTrue(stdout.toString().contains(" records=0 "), stdout.toString());
        }
    }

    @Test
    void shouldExitWithDataLossOnAGapTimeoutOnTimeoutAndConfigOnBadConfig() throws Exception
    {
        try (ExclusivePublication partition0 = aeron.addExclusivePublication(CHANNEL, STREAM_ID_BASE + 10))
        {
            final Path ready = tempDir.resolve("ready-gap");
            final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            final CompletableFuture<Integer> exitCode = runRecord(stdout,
                "--channel", CHANNEL, "--stream-id-base", Integer.toString(STREAM_ID_BASE + 10), "--partitions", "1",
                "--out", tempDir.resolve("gap.bin").toString(), "--ready-file", ready.toString(),
                "--until-end-of-messages", "--timeout-s", "20", "--no-recovery");
            awaitFile(ready, exitCode);
            begin(0, 1);
            addOrder(1, 1, Side.BUY, 1, 1);
            offer(partition0, 0);
            begin(0, 3); // sequence 2 lost
            endOfMessages();
            offer(partition0, 0);
            assertEquals(ExitCodes.DATA_LOSS, exitCode.get(15, TimeUnit.SECONDS), stdout::toString);
        }

        final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
        assertEquals(ExitCodes.TIMEOUT, runRecord(stdout,
            "--channel", CHANNEL, "--stream-id-base", "1590", "--partitions", "1",
            "--out", tempDir.resolve("timeout.bin").toString(), "--until-end-of-messages", "--timeout-s", "1")
            .get(15, TimeUnit.SECONDS));
        assertTrue(stdout.toString().contains("timed out"), stdout.toString());

        final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        final RecordCommand command = new RecordCommand();
        command.stderr = new PrintStream(stderr, true, StandardCharsets.UTF_8);
        assertEquals(ExitCodes.CONFIG, new CommandLine(command).execute(
            "--partitions", "2", "--partition", "5", "--out", tempDir.resolve("bad.bin").toString()));
        assertEquals("record: --partition 5 is outside 0..1 (--partitions 2)\n",
            stderr.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aSessionWhoseEndOfMessagesWasDeclaredLostEndsAtTheStaleNoticeWithTheDataLossCode() throws Exception
    {
        // The feed handler declared the session's last messages missing, its End of Messages among them, then wrote a
        // GapNotice STALE: the recorder ends there (exit 4), rather than wait for an End of Messages until its timeout.
        try (ExclusivePublication partition0 = aeron.addExclusivePublication(CHANNEL, STREAM_ID_BASE + 15))
        {
            final Path ready = tempDir.resolve("ready-end-lost");
            final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            final CompletableFuture<Integer> exitCode = runRecord(stdout,
                "--channel", CHANNEL, "--stream-id-base", Integer.toString(STREAM_ID_BASE + 15), "--partitions", "1",
                "--out", tempDir.resolve("end-lost.bin").toString(), "--ready-file", ready.toString(),
                "--until-end-of-messages", "--timeout-s", "60");
            awaitFile(ready, exitCode);
            begin(0, 1);
            addOrder(1, 1, Side.BUY, 1, 1);
            gapNotice(2, 4, GapReason.UNRECOVERED);
            gapNotice(4, 4, GapReason.STALE);
            offer(partition0, 0);
            assertEquals(ExitCodes.DATA_LOSS, exitCode.get(15, TimeUnit.SECONDS), stdout::toString);
            assertTrue(stdout.toString().contains("messages=3 "), stdout.toString());
        }
    }

    @Test
    void stopAtLossEndsAtTheFirstMessageLostForGoodWhereWithoutItTheRecorderWaitsForItsTimeout() throws Exception
    {
        // An exchange gap (UNRECOVERED) in the middle of a session whose end has not come: with --stop-at-loss the
        // verdict is known at once; without it the recorder waits for End of Messages, here until its timeout.
        try (ExclusivePublication partition0 = aeron.addExclusivePublication(CHANNEL, STREAM_ID_BASE + 40))
        {
            final Path readyStop = tempDir.resolve("ready-stop-at-loss");
            final Path readyWait = tempDir.resolve("ready-wait");
            final ByteArrayOutputStream stopOut = new ByteArrayOutputStream();
            final ByteArrayOutputStream waitOut = new ByteArrayOutputStream();
            final String streamIdBase = Integer.toString(STREAM_ID_BASE + 40);
            final CompletableFuture<Integer> stopping = runRecord(stopOut,
                "--channel", CHANNEL, "--stream-id-base", streamIdBase, "--partitions", "1",
                "--ready-file", readyStop.toString(), "--until-end-of-messages", "--timeout-s", "60", "--stop-at-loss");
            final CompletableFuture<Integer> waiting = runRecord(waitOut,
                "--channel", CHANNEL, "--stream-id-base", streamIdBase, "--partitions", "1",
                "--ready-file", readyWait.toString(), "--until-end-of-messages", "--timeout-s", "8");
            awaitFile(readyStop, stopping);
            awaitFile(readyWait, waiting);
            begin(0, 1);
            addOrder(1, 1, Side.BUY, 1, 1);
            gapNotice(3, 5, GapReason.UNRECOVERED);
            offer(partition0, 0);

            assertEquals(ExitCodes.DATA_LOSS, stopping.get(15, TimeUnit.SECONDS), stopOut::toString);
            assertTrue(stopOut.toString().contains("exchangeGaps=1 "), stopOut.toString());
            assertFalse(waiting.isDone(), waitOut::toString);
            assertEquals(ExitCodes.TIMEOUT, waiting.get(15, TimeUnit.SECONDS), waitOut::toString);
            assertTrue(waitOut.toString().contains("exchangeGaps=1 "), waitOut.toString());
        }

        // Without recovery, a stream gap is a loss for good too.
        try (ExclusivePublication partition0 = aeron.addExclusivePublication(CHANNEL, STREAM_ID_BASE + 41))
        {
            final Path ready = tempDir.resolve("ready-stop-at-gap");
            final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            final CompletableFuture<Integer> exitCode = runRecord(stdout,
                "--channel", CHANNEL, "--stream-id-base", Integer.toString(STREAM_ID_BASE + 41), "--partitions", "1",
                "--ready-file", ready.toString(), "--until-end-of-messages", "--timeout-s", "60", "--no-recovery",
                "--stop-at-loss");
            awaitFile(ready, exitCode);
            begin(0, 1);
            addOrder(1, 1, Side.BUY, 1, 1);
            offer(partition0, 0);
            begin(0, 3); // sequence 2 lost
            addOrder(1, 2, Side.SELL, 2, 1);
            offer(partition0, 0);
            assertEquals(ExitCodes.DATA_LOSS, exitCode.get(15, TimeUnit.SECONDS), stdout::toString);
            assertTrue(stdout.toString().contains("gaps=1 "), stdout.toString());
        }
    }

    @Test
    void lateJoinerRecoversRecordsOnlyIncrementalsAndDumpsTheRecoveredBooks() throws Exception
    {
        final int base = STREAM_ID_BASE + 20;
        final Path out = tempDir.resolve("late.bin");
        final Path books = tempDir.resolve("late-books.txt");
        final Path ready = tempDir.resolve("ready-late");
        try (ExclusivePublication incremental = aeron.addExclusivePublication(CHANNEL, base);
            ExclusivePublication snapshots = aeron.addExclusivePublication(CHANNEL, base + 10_000))
        {
            final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            final CompletableFuture<Integer> exitCode = runRecord(stdout,
                "--channel", CHANNEL, "--stream-id-base", Integer.toString(base), "--partitions", "1",
                "--out", out.toString(), "--books-out", books.toString(), "--ready-file", ready.toString(),
                // The late joiner's poll thread also runs its embedded driver and Aeron client: the
                // snapshot subscription it adds while recovering must still complete.
                "--until-end-of-messages", "--timeout-s", "20", "--driver-threading", "invoker");
            awaitFile(ready, exitCode);

            begin(0, 11);                 // 1..10 happened before the recorder started
            executed(2, 7, 100);
            offer(incremental, 0);
            awaitLine(stdout, "STALE partition=0 reason=LATE_JOIN streamSequence=11 epochMs=", exitCode);

            // Snapshot consistent with 10: instrument 2 with order 7 (300 shares); instrument 3 empty.
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long snapshotSequence = 1;
            while (!stdout.toString().contains("RECOVERED"))
            {
                if (snapshots.isConnected())
                {
                    begin(0, snapshotSequence);
                    snapshotBegin(snapshotSequence, 10, incremental.sessionId());
                    snapshotInstrument(snapshotSequence, 2, 10, 1);
                    snapshotOrder(2, 7, 300, 5000);
                    snapshotEnd(snapshotSequence, 10, 3, 1, 1, 2);
                    offerUnrecorded(snapshots);
                    snapshotSequence += 4;
                }
                assertTrue(System.nanoTime() < deadline && !exitCode.isDone(), stdout::toString);
                Thread.sleep(50);
            }

            begin(0, 12);
            endOfMessages();
            offer(incremental, 0);
            assertEquals(ExitCodes.OK, exitCode.get(15, TimeUnit.SECONDS), stdout::toString);
            final String output = stdout.toString();
            assertTrue(output.contains("RECOVERED partition=0 snapshotId="), output);
            assertTrue(output.contains(" lastStreamSequence=10 staleMs="), output);
            assertTrue(output.contains("recoveries=1"), output);
            assertEquals("I 2\nB 5000 200 1\n", new String(Files.readAllBytes(books), StandardCharsets.UTF_8));

            final ByteBuffer file = ByteBuffer.wrap(Files.readAllBytes(out)).order(ByteOrder.LITTLE_ENDIAN);
            final List<Long> sequences = new ArrayList<>();
            while (file.hasRemaining())
            {
                final int length = file.getInt();
                file.getShort();
                sequences.add(file.getLong());
                file.position(file.position() + length);
            }
            assertEquals(List.of(11L, 12L), sequences, "only incrementals are recorded");
        }
    }

    @Test
    void aSnapshotTakenAfterTheEndKeepsTheRecorderRunningUntilItsEnd() throws Exception
    {
        // A subscriber that is stale when the session ends recovers from a snapshot whose market state is
        // END_OF_MESSAGES. That state comes before the SnapshotEnd: stopping there would leave the
        // partition stale (exit 2) one packet short of recovered.
        final int base = STREAM_ID_BASE + 30;
        final Path books = tempDir.resolve("after-end-books.txt");
        final Path ready = tempDir.resolve("ready-after-end");
        try (ExclusivePublication incremental = aeron.addExclusivePublication(CHANNEL, base);
            ExclusivePublication snapshots = aeron.addExclusivePublication(CHANNEL, base + 10_000))
        {
            final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
            final CompletableFuture<Integer> exitCode = runRecord(stdout,
                "--channel", CHANNEL, "--stream-id-base", Integer.toString(base), "--partitions", "1",
                "--out", tempDir.resolve("after-end.bin").toString(), "--books-out", books.toString(),
                "--ready-file", ready.toString(), "--until-end-of-messages", "--timeout-s", "20");
            awaitFile(ready, exitCode);

            begin(0, 11);                 // 1..10 happened before the recorder started
            executed(2, 7, 100);
            endOfMessages();              // 12: the session is over
            offer(incremental, 0);
            awaitLine(stdout, "STALE partition=0 reason=LATE_JOIN streamSequence=11 epochMs=", exitCode);

            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!snapshots.isConnected())
            {
                assertTrue(System.nanoTime() < deadline && !exitCode.isDone(), stdout::toString);
                Thread.sleep(10);
            }
            begin(0, 1);
            snapshotBegin(1, 12, incremental.sessionId());
            endOfMessages();              // the market's state at 12
            snapshotInstrument(1, 2, 12, 1);
            snapshotOrder(2, 7, 200, 5000);
            offerUnrecorded(snapshots);

            Thread.sleep(1_000);
            assertTrue(!exitCode.isDone(), () -> "stopped inside the snapshot: " + stdout);

            begin(0, 5);
            snapshotEnd(1, 12, 3, 1, 1, 3);
            offerUnrecorded(snapshots);

            assertEquals(ExitCodes.OK, exitCode.get(15, TimeUnit.SECONDS), stdout::toString);
            final String output = stdout.toString();
            assertTrue(output.contains("RECOVERED partition=0 snapshotId=1 lastStreamSequence=12 staleMs="), output);
            assertTrue(output.contains("stalePartitions=[]"), output);
            assertEquals("I 2\nB 5000 200 1\n", new String(Files.readAllBytes(books), StandardCharsets.UTF_8));
        }
    }

    /** Eight messages: five on partition 0 (two packets, the second ending it), three on partition 1. */
    private void offerTwoPartitionSession(final ExclusivePublication partition0, final ExclusivePublication partition1)
    {
        begin(0, 1);
        directory(2, "ABC");
        addOrder(2, 1, Side.BUY, 100_0000, 300);
        addOrder(2, 2, Side.BUY, 100_0000, 200);
        addOrder(4, 3, Side.SELL, 5_0000, 10);
        offer(partition0, 0);
        begin(0, 5);
        executed(2, 1, 100);
        endOfMessages();
        offer(partition0, 0);

        begin(1, 1);
        addOrder(3, 4, Side.SELL, 7_0000, 5);
        endOfMessages();
        offer(partition1, 1);
    }

    private static void awaitLine(
        final ByteArrayOutputStream stdout, final String prefix, final CompletableFuture<Integer> exitCode)
        throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!stdout.toString().contains(prefix))
        {
            if (exitCode.isDone() || System.nanoTime() > deadline)
            {
                fail("no line " + prefix + " in: " + stdout);
            }
            Thread.sleep(5);
        }
    }

    private void offerUnrecorded(final ExclusivePublication publication)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (publication.offer(buffer, 0, limit) < 0)
        {
            if (System.nanoTime() > deadline)
            {
                fail("offer not accepted");
            }
            Thread.yield();
        }
    }

    private static CompletableFuture<Integer> runRecord(final ByteArrayOutputStream stdout, final String... args)
    {
        final RecordCommand command = new RecordCommand();
        command.stdout = new PrintStream(stdout, true, StandardCharsets.UTF_8);
        return CompletableFuture.supplyAsync(() -> new CommandLine(command).execute(args));
    }

    private static void awaitFile(final Path file, final CompletableFuture<Integer> exitCode) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Files.exists(file))
        {
            if (exitCode.isDone())
            {
                fail("record exited early with " + exitCode.get());
            }
            if (System.nanoTime() > deadline)
            {
                fail("ready file not created: " + file);
            }
            Thread.sleep(5);
        }
    }

    private void begin(final int partition, final long firstSequence)
    {
        packetHeader.wrapAndApplyHeader(buffer, 0, header)
            .streamSequence(firstSequence).sendingTime(System.currentTimeMillis() * 1_000_000L)
            .partitionId(partition).messageCount(0);
        limit = MessageHeaderEncoder.ENCODED_LENGTH + PacketHeaderEncoder.BLOCK_LENGTH;
        count = 0;
    }

    private int next(final int blockLength)
    {
        final int offset = limit;
        limit += MessageHeaderEncoder.ENCODED_LENGTH + blockLength;
        packetHeader.messageCount(++count);
        return offset;
    }

    private void directory(final long instrumentId, final String symbol)
    {
        new InstrumentDirectoryEncoder().wrapAndApplyHeader(buffer, next(InstrumentDirectoryEncoder.BLOCK_LENGTH), header)
            .instrumentId(instrumentId).symbol(String.format("%-8s", symbol));
    }

    private void addOrder(final long instrumentId, final long orderId, final Side side, final long price, final long shares)
    {
        new AddOrderEncoder().wrapAndApplyHeader(buffer, next(AddOrderEncoder.BLOCK_LENGTH), header)
            .instrumentId(instrumentId).orderId(orderId).side(side).shares(shares).price().mantissa(price);
    }

    private void executed(final long instrumentId, final long orderId, final long shares)
    {
        new OrderExecutedEncoder().wrapAndApplyHeader(buffer, next(OrderExecutedEncoder.BLOCK_LENGTH), header)
            .instrumentId(instrumentId).orderId(orderId).executedShares(shares).matchNumber(9);
    }

    private void snapshotBegin(final long snapshotId, final long lastSequence, final int incrementalSessionId)
    {
        new SnapshotBeginEncoder().wrapAndApplyHeader(buffer, next(SnapshotBeginEncoder.BLOCK_LENGTH), header)
            .instrumentId(0).snapshotId(snapshotId).lastStreamSequence(lastSequence)
            .incrementalSessionId(incrementalSessionId).partitionId(0).unrecoveredFromSequence(0).unrecoveredToSequence(0);
    }

    private void snapshotInstrument(
        final long snapshotId, final long instrumentId, final long lastSequence, final int orderCount)
    {
        new SnapshotInstrumentEncoder().wrapAndApplyHeader(buffer, next(SnapshotInstrumentEncoder.BLOCK_LENGTH), header)
            .instrumentId(instrumentId).snapshotId(snapshotId).lastStreamSequence(lastSequence)
            .coveredFromInstrumentId(1).orderCount(orderCount);
    }

    private void snapshotOrder(final long instrumentId, final long orderId, final long shares, final long price)
    {
        new SnapshotOrderEncoder().wrapAndApplyHeader(buffer, next(SnapshotOrderEncoder.BLOCK_LENGTH), header)
            .instrumentId(instrumentId).orderId(orderId).shares(shares).side(Side.BUY).attribution("    ")
            .price().mantissa(price);
    }

    private void snapshotEnd(
        final long snapshotId, final long lastSequence, final long coveredFrom, final int instruments,
        final int orders, final int messages)
    {
        new SnapshotEndEncoder().wrapAndApplyHeader(buffer, next(SnapshotEndEncoder.BLOCK_LENGTH), header)
            .instrumentId(0).snapshotId(snapshotId).lastStreamSequence(lastSequence).coveredFromInstrumentId(coveredFrom)
            .instrumentCount(instruments).orderCount(orders).messageCount(messages);
    }

    private void gapNotice(final long first, final long last, final GapReason reason)
    {
        new GapNoticeEncoder().wrapAndApplyHeader(buffer, next(GapNoticeEncoder.BLOCK_LENGTH), header)
            .exchangeSequence(first).lastMissingSequence(last).instrumentId(0).reason(reason);
    }

    private void endOfMessages()
    {
        new SystemEventEncoder().wrapAndApplyHeader(buffer, next(SystemEventEncoder.BLOCK_LENGTH), header)
            .instrumentId(0).eventCode(SystemEventCode.END_OF_MESSAGES);
    }

    private void offer(final ExclusivePublication publication, final int partition)
    {
        int offset = MessageHeaderEncoder.ENCODED_LENGTH + PacketHeaderEncoder.BLOCK_LENGTH;
        while (offset < limit)
        {
            final int length = MessageHeaderEncoder.ENCODED_LENGTH + (buffer.getShort(offset) & 0xFFFF);
            final byte[] bytes = new byte[length];
            buffer.getBytes(offset, bytes);
            sentByPartition.get(partition).add(bytes);
            offset += length;
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (publication.offer(buffer, 0, limit) < 0)
        {
            if (System.nanoTime() > deadline)
            {
                fail("offer not accepted");
            }
            Thread.yield();
        }
    }

}
