package io.mdfanout.sdk;

import io.aeron.Aeron;
import io.aeron.archive.client.AeronArchive;
import io.mdfanout.wire.ArchiveSessions;

import java.util.ArrayList;
import java.util.List;

/**
 * The subscriber's connection to an archive, shared by its replaying partitions: connected without blocking the
 * poll loop ({@link AeronArchive.AsyncConnect}), then asked for the recordings of a trading session. Polling
 * thread only.
 */
final class ArchiveReplayClient implements AutoCloseable
{
    /** One recording of a partition's stream. */
    record Recording(long recordingId, long startPosition, long stopPosition, int sessionId)
    {
        boolean isActive()
        {
            return AeronArchive.NULL_POSITION == stopPosition;
        }
    }

    private final AeronArchive.Context context;
    private AeronArchive.AsyncConnect asyncConnect;
    private AeronArchive archive;
    private String session;
    private RuntimeException failure;

    ArchiveReplayClient(
        final Aeron aeron,
        final String controlChannel,
        final int controlStreamId,
        final String responseChannel,
        final String session)
    {
        this.session = session;
        this.context = new AeronArchive.Context()
            .aeron(aeron)
            .ownsAeronClient(false)
            .controlRequestChannel(controlChannel)
            .controlRequestStreamId(controlStreamId)
            .controlResponseChannel(responseChannel);
    }

    /** @return the connected client, or null while connecting (or after a failure, see {@link #failure()}). */
    AeronArchive poll()
    {
        if (null != archive || null != failure)
        {
            return archive;
        }
        try
        {
            if (null == asyncConnect)
            {
                asyncConnect = AeronArchive.asyncConnect(context.clone());
            }
            archive = asyncConnect.poll();
        }
        catch (final RuntimeException ex)
        {
            failure = ex;
            asyncConnect = null;
        }
        return archive;
    }

    RuntimeException failure()
    {
        return failure;
    }

    /** The session replayed: the one asked for, else the newest the archive holds for {@code streamId}. */
    String session(final int streamId)
    {
        if (null == session)
        {
            session = ArchivedSessions.newest(archive, streamId);
        }
        return session;
    }

    /**
     * The recordings of the session for a partition's stream after {@code afterRecordingId}, oldest first.
     *
     * @param streamId         the partition's stream id on the side's channel.
     * @param side             0: side A of a pair, or a single fanout; 1: side B, recorded under an alias of its own.
     * @param afterRecordingId the last recording already known; -1 for all.
     * @return the recordings.
     */
    List<Recording> recordings(final int streamId, final int side, final long afterRecordingId)
    {
        final List<Recording> recordings = new ArrayList<>();
        final String wanted = session(streamId);
        if (null == wanted)
        {
            return recordings;
        }
        archive.listRecordingsForUri(Math.max(0, afterRecordingId + 1), Integer.MAX_VALUE, "", streamId,
            (controlSessionId, correlationId, recordingId, startTimestamp, stopTimestamp, startPosition, stopPosition,
            initialTermId, segmentFileLength, termBufferLength, mtuLength, sessionId, stream, strippedChannel,
            originalChannel, sourceIdentity) ->
            {
                if (stream == streamId && wanted.equals(ArchiveSessions.sessionOf(originalChannel)) &&
                    side == ArchiveSessions.sideOf(originalChannel))
                {
                    recordings.add(new Recording(recordingId, startPosition, stopPosition, sessionId));
                }
            });
        return recordings;
    }

    AeronArchive archive()
    {
        return archive;
    }

    public void close()
    {
        if (null != archive)
        {
            archive.close();
            archive = null;
        }
        if (null != asyncConnect)
        {
            asyncConnect.close();
            asyncConnect = null;
        }
    }
}
