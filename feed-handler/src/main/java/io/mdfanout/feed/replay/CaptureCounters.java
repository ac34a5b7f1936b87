package io.mdfanout.feed.replay;

import org.agrona.CloseHelper;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import static io.mdfanout.wire.MdfanoutCounters.CAPTURE_DATAGRAMS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.CAPTURE_FILTERED_OUT_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.CAPTURE_FIRST_FRAGMENTS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.CAPTURE_FRAGMENTS_SKIPPED_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.CAPTURE_MALFORMED_RECORDS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.CAPTURE_NON_IPV4_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.CAPTURE_NON_UDP_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.CAPTURE_OTHER_BLOCKS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.CAPTURE_RECORDS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.CAPTURE_SNAPPED_RECORDS_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.CAPTURE_TRUNCATED_AT_END_TYPE_ID;
import static io.mdfanout.wire.MdfanoutCounters.CAPTURE_UNKNOWN_LINK_TYPE_TYPE_ID;

/**
 * Counters of a capture (pcap, pcapng) replay, from the capture records down to the UDP datagrams
 * handed to the MoldUDP64 line arbiter. Packet, sequence and message counters are the arbiter's and
 * the normalizer's own. Single writer: the replay thread.
 */
public final class CaptureCounters implements AutoCloseable
{
    private final AtomicCounter records;
    private final AtomicCounter snappedRecords;
    private final AtomicCounter malformedRecords;
    private final AtomicCounter unknownLinkType;
    private final AtomicCounter nonIpv4;
    private final AtomicCounter nonUdp;
    private final AtomicCounter fragmentsSkipped;
    private final AtomicCounter firstFragments;
    private final AtomicCounter filteredOut;
    private final AtomicCounter datagrams;
    private final AtomicCounter otherBlocks;
    private final AtomicCounter truncatedAtEnd;

    /**
     * Allocate the counters.
     *
     * @param countersManager to allocate from.
     */
    public CaptureCounters(final CountersManager countersManager)
    {
        records = countersManager.newCounter("replay capture: packet records read", CAPTURE_RECORDS_TYPE_ID);
        snappedRecords = countersManager.newCounter(
            "replay capture: records captured shorter than on the wire (skipped)", CAPTURE_SNAPPED_RECORDS_TYPE_ID);
        malformedRecords = countersManager.newCounter(
            "replay capture: malformed records or frames (skipped)", CAPTURE_MALFORMED_RECORDS_TYPE_ID);
        unknownLinkType = countersManager.newCounter(
            "replay capture: records of an unsupported link type (skipped)", CAPTURE_UNKNOWN_LINK_TYPE_TYPE_ID);
        nonIpv4 = countersManager.newCounter("replay capture: frames not IPv4 (skipped)", CAPTURE_NON_IPV4_TYPE_ID);
        nonUdp = countersManager.newCounter(
            "replay capture: IPv4 datagrams not UDP (skipped)", CAPTURE_NON_UDP_TYPE_ID);
        fragmentsSkipped = countersManager.newCounter(
            "replay capture: IPv4 fragments after the first (skipped)", CAPTURE_FRAGMENTS_SKIPPED_TYPE_ID);
        firstFragments = countersManager.newCounter(
            "replay capture: first IPv4 fragments (partial payload processed)", CAPTURE_FIRST_FRAGMENTS_TYPE_ID);
        filteredOut = countersManager.newCounter(
            "replay capture: UDP datagrams not matching --group/--port", CAPTURE_FILTERED_OUT_TYPE_ID);
        datagrams = countersManager.newCounter(
            "replay capture: UDP datagrams processed as MoldUDP64", CAPTURE_DATAGRAMS_TYPE_ID);
        otherBlocks = countersManager.newCounter(
            "replay capture: pcapng blocks of other types (skipped)", CAPTURE_OTHER_BLOCKS_TYPE_ID);
        truncatedAtEnd = countersManager.newCounter(
            "replay capture: records or blocks cut short by the end of the file", CAPTURE_TRUNCATED_AT_END_TYPE_ID);
    }

    /** Packet records read (pcap records, pcapng Enhanced and Simple Packet blocks), valid or not. */
    public AtomicCounter records()
    {
        return records;
    }

    /** Records whose captured length is shorter than the original length (snap length too small). */
    public AtomicCounter snappedRecords()
    {
        return snappedRecords;
    }

    /** Records or frames with inconsistent lengths or headers. */
    public AtomicCounter malformedRecords()
    {
        return malformedRecords;
    }

    /** Records of a link type that is not Ethernet, Linux SLL/SLL2, raw IPv4 or BSD loopback. */
    public AtomicCounter unknownLinkType()
    {
        return unknownLinkType;
    }

    /** Frames carrying something other than IPv4 (ARP, IPv6, ...). */
    public AtomicCounter nonIpv4()
    {
        return nonIpv4;
    }

    /** IPv4 datagrams of another protocol than UDP. */
    public AtomicCounter nonUdp()
    {
        return nonUdp;
    }

    /** IPv4 fragments with a non-zero offset: no reassembly, so they are skipped. */
    public AtomicCounter fragmentsSkipped()
    {
        return fragmentsSkipped;
    }

    /** First fragments of a fragmented UDP datagram: the part captured is processed, the loss shows as a gap. */
    public AtomicCounter firstFragments()
    {
        return firstFragments;
    }

    /** UDP datagrams to another group or port than the filter. */
    public AtomicCounter filteredOut()
    {
        return filteredOut;
    }

    /** UDP payloads handed to the MoldUDP64 line arbiter. */
    public AtomicCounter datagrams()
    {
        return datagrams;
    }

    /** pcapng blocks that carry no packet (statistics, name resolution, custom, ...). */
    public AtomicCounter otherBlocks()
    {
        return otherBlocks;
    }

    /** A record (pcap) or block (pcapng) cut short by the end of the file: the reading ends there. */
    public AtomicCounter truncatedAtEnd()
    {
        return truncatedAtEnd;
    }

    /** Free the counters. */
    public void close()
    {
        CloseHelper.closeAll(
            records, snappedRecords, malformedRecords, unknownLinkType, nonIpv4, nonUdp, fragmentsSkipped,
            firstFragments, filteredOut, datagrams, otherBlocks, truncatedAtEnd);
    }
}
