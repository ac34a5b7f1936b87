package io.mdfanout.feed.fuzz;

import io.mdfanout.feed.handler.ArbitrationCounters;
import io.mdfanout.feed.handler.FeedHandlerCounters;
import io.mdfanout.feed.handler.InMemoryCounters;
import io.mdfanout.feed.handler.LineArbiter;
import io.mdfanout.feed.normalize.ItchNormalizer;
import io.mdfanout.feed.normalize.NormalizerCounters;
import io.mdfanout.feed.support.RingWaitDeadline;
import io.mdfanout.feed.support.Rings;
import org.agrona.concurrent.ringbuffer.RingBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The live path under fuzz: MoldUDP64 line arbiter (one line, gaps declared at once) -> normalizer ->
 * two partition rings, drained and validated after every input. The rings hold far more than one maximal datagram
 * produces, so the normalizer never waits on a full ring (which would hang the test, not the feed).
 */
final class FuzzChain
{
    static final String SESSION = "FUZZ000001";
    static final int PARTITIONS = 2;

    final RingBuffer[] rings = Rings.inMemory(PARTITIONS, 1 << 20);
    final InMemoryCounters counters = new InMemoryCounters(256);
    final NormalizerCounters normalizerCounters = new NormalizerCounters(counters.countersManager(), "fuzz", PARTITIONS);
    final FeedHandlerCounters feedCounters = new FeedHandlerCounters(counters.countersManager(), "fuzz");
    final ArbitrationCounters arbitrationCounters = new ArbitrationCounters(counters.countersManager(), "fuzz");
    final ItchNormalizer normalizer = new ItchNormalizer(rings, new RingWaitDeadline(), normalizerCounters);
    final RingValidator validator = new RingValidator(PARTITIONS);
    LineArbiter arbiter = newArbiter();

    /** A new session: a fresh arbiter (sequence 1) over the same rings and counters. */
    void newSession()
    {
        arbiter = newArbiter();
        validator.reset();
    }

    private LineArbiter newArbiter()
    {
        final LineArbiter arbiter = LineArbiter.singleLine(SESSION, normalizer, feedCounters, arbitrationCounters);
        // After an end of session a packet of another session (a corrupted name) is adopted and numbers from
        // its own sequence: the rings' sequences start over, as they do live. What the ended session wrote last (its
        // end, a GapNotice STALE where its End of Messages was lost) is checked as that session's first.
        arbiter.sessionListener((session, firstSequence) ->
        {
            validator.drain(rings);
            validator.reset();
        });
        return arbiter;
    }

    /** Drain and validate the rings, then check the counters agree with what came out. */
    void drainAndCheck()
    {
        validator.drain(rings);
        assertEquals(0, feedCounters.packetErrors().get(), "an unexpected exception was caught in onPacket");
        assertEquals(0, arbiter.heldMessages(), "a single line holds nothing");
        assertEquals(0, arbiter.openGaps(), "a single line declares every gap at once");
        assertEquals(normalizerCounters.ringRecordsWritten().get(), validator.records(), "ring records written");
        assertEquals(normalizerCounters.gapNoticesPublished().get() * PARTITIONS, validator.gapNotices(), "gap notices");
        assertTrue(normalizerCounters.messagesPublished().get() <= normalizerCounters.totalDecoded(),
            "published <= decoded");
        assertTrue(normalizerCounters.messagesPublished().get() + normalizerCounters.gapNoticesPublished().get() <=
            validator.records(), "every publication wrote at least one record");
        assertEquals(0, normalizerCounters.ringWritesAbandoned().get());
    }
}
