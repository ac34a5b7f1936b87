package io.mdfanout.sdk;

import io.aeron.archive.client.AeronArchive;
import io.mdfanout.wire.ArchiveSessions;

/**
 * The trading sessions an archive holds, as its recordings' channels name them ({@link ArchiveSessions}).
 */
public final class ArchivedSessions
{
    private ArchivedSessions()
    {
    }

    /**
     * The newest trading session the archive holds a recording of for a stream: the session of its last recording
     * that belongs to one (the one a replay without a session name replays).
     *
     * @param archive  a connected archive client.
     * @param streamId a partition's stream id.
     * @return the session's name, or null when the archive holds no session's recording of the stream.
     */
    public static String newest(final AeronArchive archive, final int streamId)
    {
        final String[] newest = { null };
        archive.listRecordingsForUri(0, Integer.MAX_VALUE, "", streamId, (controlSessionId, correlationId,
            recordingId, startTimestamp, stopTimestamp, startPosition, stopPosition, initialTermId,
            segmentFileLength, termBufferLength, mtuLength, sessionId, stream, strippedChannel, originalChannel,
            sourceIdentity) ->
        {
            final String name = ArchiveSessions.sessionOf(originalChannel);
            if (null != name)
            {
                newest[0] = name;
            }
        });
        return newest[0];
    }
}
