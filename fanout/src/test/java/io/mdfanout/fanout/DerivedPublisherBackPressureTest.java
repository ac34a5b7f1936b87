package io.mdfanout.fanout;

import io.aeron.ExclusivePublication;
import io.aeron.Subscription;
import io.mdfanout.fanout.derived.DerivedCounters;
import io.mdfanout.fanout.derived.DerivedPublisher;
import io.mdfanout.sbe.MessageHeaderDecoder;
import io.mdfanout.sbe.PacketHeaderDecoder;
import io.mdfanout.wire.FeedStream;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A derived stream's publisher under back pressure, against a real embedded media driver: the packets its publication
 * refuses wait in the backlog and go out in order once the subscriber reads again, and while the publication still
 * refuses, draining the backlog reports no work, so that the duty cycle's idle strategy backs off (a publisher that
 * reported work there spun a whole core on shared cores, and starved the subscribers it was waiting for).
 */
final class DerivedPublisherBackPressureTest
{
    private static final String IPC = "aeron:ipc?term-length=64k";
    private static final int STREAM_ID = 3101;
    private static final int MESSAGE_LENGTH = 100;

    private final List<Throwable> errors = new ArrayList<>();
    private final TestAeron testAeron = new TestAeron();
    private ExclusivePublication publication;
    private Subscription subscription;

    @AfterEach
    void tearDown()
    {
        CloseHelper.closeAll(subscription, publication, testAeron);
        assertEquals(List.of(), errors);
    }

    @Test
    void aRefusedBacklogIsNoWorkAndGoesOutInOrderOnceTheSubscriberReads()
    {
        publication = testAeron.aeron.addExclusivePublication(IPC, STREAM_ID);
        subscription = testAeron.aeron.addSubscription(IPC, STREAM_ID);
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(publication.isConnected() && subscription.isConnected()))
        {
            if (System.nanoTime() > deadlineNs)
            {
                fail("no connection");
            }
            Thread.yield();
        }
        final DerivedCounters counters = new DerivedCounters(TestCounters.newManager(), 0, FeedStream.BBO);
        final DerivedPublisher publisher = new DerivedPublisher(
            0, FeedStream.BBO, publication, counters, TimeUnit.SECONDS.toNanos(1000), System::nanoTime, errors::add);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[MESSAGE_LENGTH]);

        // One packet a message, the subscriber not reading: the publication's window fills, then the backlog.
        int sent = 0;
        while (publisher.backlogBytes() < 16 * 1024)
        {
            message.putInt(0, sent);
            publisher.append(message, 0, MESSAGE_LENGTH, 0);
            publisher.flush(0);
            sent++;
            assertTrue(sent < 100_000, "the publication never pushed back");
        }
        for (int i = 0; i < 1_000; i++)
        {
            assertEquals(0, publisher.drainBacklog(), "a backlog the publication still refuses is no work");
        }
        assertEquals(0, counters.backPressureDropped().get(), "nothing dropped: the backlog holds it");

        // The subscriber reads again: the backlog goes out, in order, and draining it is work.
        final List<Long> sequences = new ArrayList<>();
        final MessageHeaderDecoder header = new MessageHeaderDecoder();
        final PacketHeaderDecoder packet = new PacketHeaderDecoder();
        int drained = 0;
        final long drainDeadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (sequences.size() < sent)
        {
            subscription.poll((buffer, offset, length, h) ->
            {
                packet.wrapAndApplyHeader(buffer, offset, header);
                sequences.add(packet.streamSequence());
            }, 100);
            drained += publisher.drainBacklog();
            if (System.nanoTime() > drainDeadlineNs)
            {
                fail("received " + sequences.size() + " of " + sent + " packets");
            }
        }
        assertEquals(0, publisher.backlogBytes(), "the backlog went out");
        assertTrue(drained > 0, "sending the backlog is work: " + drained);
        for (int i = 0; i < sent; i++)
        {
            assertEquals(i + 1L, sequences.get(i), "packet " + i + "'s stream sequence");
        }
        assertEquals(0, counters.backPressureDropped().get(), "nothing dropped");
    }
}
