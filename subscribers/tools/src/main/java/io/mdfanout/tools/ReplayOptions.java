package io.mdfanout.tools;

import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.ReplayStart;
import picocli.CommandLine.Option;

/**
 * Start a tool from a point of a recorded session: replay from the archive, then the live stream
 * (docs/ARCHIVE.md).
 */
public final class ReplayOptions
{
    @Option(names = "--from",
        description = "Start from this point of the session, replayed from the archive, then go on live: start, " +
            "seq:N (stream sequence N of every partition), seq:P=N,P=N, HH:MM:SS[.fraction] or ns:N (exchange time). " +
            "What comes before it is replayed as the state at it. Needs --archive-control-channel.")
    String from;

    @Option(names = "--archive-control-channel",
        description = "The archive's control channel, with its host (the archive's --control-channel), e.g. " +
            "aeron:udp?endpoint=archive-host:8010.")
    String archiveControlChannel;

    @Option(names = "--archive-response-channel", defaultValue = FeedSubscriber.Context.DEFAULT_ARCHIVE_RESPONSE_CHANNEL,
        description = "Where the archive answers: an address of this host it reaches (port 0: any free port).")
    String archiveResponseChannel;

    @Option(names = "--replay-channel", defaultValue = FeedSubscriber.Context.DEFAULT_REPLAY_CHANNEL,
        description = "Where the archive sends the replay: an address of this host it reaches (port 0: any free port).")
    String replayChannel;

    @Option(names = "--replay-session",
        description = "The trading session to replay (the archive's --session); absent: the newest it holds.")
    String replaySession;

    @Option(names = "--replay-only", defaultValue = "false",
        description = "Replay to the end of what the archive holds, then stop (a past session); no live stream.")
    boolean replayOnly;

    @Option(names = "--pace", defaultValue = "full",
        description = "Replay speed: full (as fast as it comes) or original (the pace the fanout sent it).")
    String pace;

    /** @return the replay's start point, or null when no --from was given. */
    ReplayStart start()
    {
        return null == from ? null : ReplayPoint.parse("--from", from);
    }

    void validate()
    {
        if (!"full".equals(pace) && !"original".equals(pace))
        {
            throw new IllegalArgumentException("--pace must be full or original: " + pace);
        }
        if (null == from)
        {
            if (replayOnly || null != replaySession)
            {
                throw new IllegalArgumentException("--replay-only and --replay-session need --from");
            }
            return;
        }
        start();
        if (null == archiveControlChannel)
        {
            throw new IllegalArgumentException("--from needs --archive-control-channel (where the archive runs)");
        }
    }

    FeedSubscriber.Context applyTo(final FeedSubscriber.Context context)
    {
        if (null == from)
        {
            return context;
        }
        return context
            .replayFrom(start())
            .archiveControlChannel(archiveControlChannel)
            .archiveResponseChannel(archiveResponseChannel)
            .replayChannel(replayChannel)
            .replaySession(replaySession)
            .replayToLive(!replayOnly)
            .replayOriginalPace("original".equals(pace));
    }
}
