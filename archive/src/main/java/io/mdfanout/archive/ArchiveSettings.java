package io.mdfanout.archive;

import io.aeron.driver.ThreadingMode;
import io.mdfanout.wire.IdleStrategyType;

import java.nio.file.Path;

/**
 * What the archive role runs with, as {@link ArchiveCommand} parsed and checked it; the defaults are named here.
 */
record ArchiveSettings(
    Path archiveDir,
    String aeronDirectoryName,
    String channel,
    int streamIdBase,
    String pairChannel,
    int pairStreamIdBase,
    int partitions,
    String controlChannel,
    int controlStreamId,
    String replicationChannel,
    String session,
    boolean sessionGiven,
    int retainSessions,
    long retainBytes,
    long minFreeBytes,
    int segmentFileLength,
    ThreadingMode driverThreading,
    IdleStrategyType idleStrategy,
    long idleMaxParkUs)
{
    /** @return how many sides the archive records: 2 for a pair ({@link #pairChannel} set), else 1. */
    int sideCount()
    {
        return null == pairChannel ? 1 : 2;
    }

    /**
     * @param side 0 for side A, 1 for side B.
     * @return the side's channel.
     */
    String channel(final int side)
    {
        return 0 == side ? channel : pairChannel;
    }

    /**
     * @param side 0 for side A, 1 for side B.
     * @return the side's stream id of partition 0.
     */
    int streamIdBase(final int side)
    {
        return 0 == side ? streamIdBase : pairStreamIdBase;
    }

    /** Where subscribers send replay requests: every interface, UDP port 8010 (Aeron Archive's usual port). */
    static final String DEFAULT_CONTROL_CHANNEL = "aeron:udp?endpoint=0.0.0.0:8010";
    /** Aeron Archive's default control stream id. */
    static final int DEFAULT_CONTROL_STREAM_ID = io.mdfanout.wire.ArchiveSessions.DEFAULT_CONTROL_STREAM_ID;
    /** Replication is not used; Aeron Archive requires a channel for it. */
    static final String DEFAULT_REPLICATION_CHANNEL = "aeron:udp?endpoint=localhost:0";
    /** Below this much free disk the archive warns (and the alert fires). */
    static final String DEFAULT_MIN_FREE_BYTES = "1g";
    /** Recording segment files: 128 MiB, Aeron's default; the disk must keep one free to record. */
    static final int DEFAULT_SEGMENT_FILE_LENGTH = 128 * 1024 * 1024;
    /** Socket receive buffer and receiver window of the archive's driver: as the fanout's embedded driver. */
    static final int SOCKET_BUFFER_LENGTH = 2 * 1024 * 1024;
    /** The stream the role's own archive client gets responses on (IPC, in this process). */
    static final int LOCAL_CONTROL_RESPONSE_STREAM_ID = 20;
}
