package io.mdfanout.tools;

import io.mdfanout.sdk.FeedSubscriber;
import io.mdfanout.sdk.SubscriberCounters;
import io.mdfanout.wire.ExitCodes;
import org.agrona.concurrent.IdleStrategy;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The options, poll loop and exit codes of the tools made for automated runs ({@code record},
 * {@code latency}), a picocli mixin: poll until stopped, until END_OF_MESSAGES on every partition with none of
 * them stale, or until the timeout; touch a ready file once every partition stream is connected. Exit codes
 * ({@link ExitCodes}): data loss when a partition is still recovering at the end, or (without recovery) a gap or
 * malformed packet was seen; a partition stale only because its source is down has lost nothing (an ended session's
 * feed handler may stop).
 */
final class SessionRun
{
    @Option(names = "--until-end-of-messages", defaultValue = "false",
        description = "Stop once a SystemEvent END_OF_MESSAGES has been received on every subscribed partition " +
            "and none is stale (with recovery on, a partition still recovering is waited for).")
    boolean untilEndOfMessages;

    @Option(names = "--sessions", defaultValue = "1",
        description = "With --until-end-of-messages: stop at the END_OF_MESSAGES of this many trading sessions (days " +
            "in a row: each new day's stream starts again at its first message, NEW_DAY).")
    int sessions;

    @Option(names = "--to",
        description = "Stop at this point of the session (exclusive): seq:N, seq:P=N,P=N, HH:MM:SS[.fraction] or ns:N " +
            "(exchange time); the messages from it on are not taken.")
    String to;

    @Option(names = "--timeout-s", defaultValue = "0",
        description = "Give up after this many seconds with exit code 5 (0 = no limit).")
    long timeoutS;

    @Option(names = "--stop-at-loss", defaultValue = "false",
        description = "Stop with exit code 4 as soon as a message is lost for good: an exchange gap (a GapNotice), " +
            "or without recovery a stream gap or a malformed packet. For a run whose verdict is any loss (a " +
            "benchmark's throughput step), which then need not wait for its End of Messages or its timeout.")
    boolean stopAtLoss;

    @Option(names = "--ready-file",
        description = "Create this file once every partition subscription has a connected publisher image.")
    Path readyFile;

    /**
     * Check the options.
     *
     * @throws IllegalArgumentException with a one-line message when one is wrong.
     */
    void validate()
    {
        if (sessions < 1)
        {
            throw new IllegalArgumentException("--sessions must be 1 or more: " + sessions);
        }
        if (timeoutS < 0)
        {
            throw new IllegalArgumentException("--timeout-s must not be negative: " + timeoutS);
        }
        if (null != to)
        {
            ReplayPoint.parse("--to", to);
        }
    }

    /**
     * Poll a tool's subscriber until the session is over, as the options say.
     *
     * @param session         the tool's session.
     * @param listener        tells when END_OF_MESSAGES was seen everywhere.
     * @param recoveryEnabled whether gaps are recovered (then only a stale partition is data loss).
     * @return the exit code.
     * @throws IOException when the ready file cannot be written.
     */
    int run(final ToolSession session, final EndOfMessagesListener listener, final boolean recoveryEnabled)
        throws IOException
    {
        listener.endAt(null == to ? null : ReplayPoint.parse("--to", to));
        listener.endAfterSessions(sessions);
        return run(session.subscriber(), listener, session.stopSignal(), readyFile, untilEndOfMessages, timeoutS,
            session.idle(), recoveryEnabled, stopAtLoss);
    }

    /**
     * Poll until the session is over.
     *
     * @param subscriber         the subscriber to poll.
     * @param listener           tells when END_OF_MESSAGES was seen everywhere.
     * @param stopSignal         SIGINT/SIGTERM.
     * @param readyFile          created once connected, or null.
     * @param untilEndOfMessages stop at END_OF_MESSAGES on every partition.
     * @param timeoutS           give up after this many seconds (0 = never).
     * @param idle               what the loop does when a poll found nothing.
     * @param recoveryEnabled    whether gaps are recovered (then only a stale partition is data loss).
     * @param stopAtLoss         return {@link ExitCodes#DATA_LOSS} at the first message lost for good.
     * @return the exit code.
     * @throws IOException when the ready file cannot be written.
     */
    static int run(
        final FeedSubscriber subscriber,
        final EndOfMessagesListener listener,
        final StopSignal stopSignal,
        final Path readyFile,
        final boolean untilEndOfMessages,
        final long timeoutS,
        final IdleStrategy idle,
        final boolean recoveryEnabled,
        final boolean stopAtLoss) throws IOException
    {
        final long deadline = timeoutS > 0 ? System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS) : Long.MAX_VALUE;
        boolean ready = null == readyFile;
        final int[] partitions = subscriber.partitions();
        while (stopSignal.isRunning())
        {
            final int work = subscriber.poll(FeedSubscriber.DEFAULT_FRAGMENT_LIMIT);
            if (!ready && subscriber.isConnected())
            {
                Files.deleteIfExists(readyFile);
                Files.createFile(readyFile);
                ready = true;
            }
            // A snapshot taken after the session's end carries END_OF_MESSAGES as market state, before its
            // SnapshotEnd: the session is over only once no partition is still recovering.
            if ((untilEndOfMessages || listener.hasEndPoint()) && listener.allEnded() &&
                (!recoveryEnabled || noneStale(subscriber, partitions)))
            {
                break;
            }
            if (subscriber.isReplayEnded())
            {
                break; // --replay-only: everything the archive holds was delivered
            }
            if (stopAtLoss && lostForGood(subscriber, partitions, recoveryEnabled))
            {
                return ExitCodes.DATA_LOSS;
            }
            if (System.nanoTime() > deadline)
            {
                return ExitCodes.TIMEOUT;
            }
            idle.idle(work);
        }

        if (!noneStale(subscriber, partitions) || anyExchangeGap(subscriber, partitions) ||
            subscriber.isReplayFailed())
        {
            return ExitCodes.DATA_LOSS;
        }
        final SubscriberCounters counters = subscriber.counters();
        return recoveryEnabled || (0 == counters.gaps() && 0 == counters.malformed()) ? ExitCodes.OK : ExitCodes.DATA_LOSS;
    }

    /** What exit code 4 would say at the end, known now: a message that no recovery can bring back. */
    private static boolean lostForGood(final FeedSubscriber subscriber, final int[] partitions, final boolean recoveryEnabled)
    {
        if (anyExchangeGap(subscriber, partitions))
        {
            return true;
        }
        final SubscriberCounters counters = subscriber.counters();
        return !recoveryEnabled && (0 != counters.gaps() || 0 != counters.malformed());
    }

    /** Exchange messages lost for good upstream (a GapNotice): the books are wrong whatever recovered. */
    private static boolean anyExchangeGap(final FeedSubscriber subscriber, final int[] partitions)
    {
        for (final int partition : partitions)
        {
            if (subscriber.hasExchangeGap(partition))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean noneStale(final FeedSubscriber subscriber, final int[] partitions)
    {
        for (final int partition : partitions)
        {
            if (subscriber.isRecovering(partition))
            {
                return false;
            }
        }
        return true;
    }
}
