package io.mdfanout.bench.peers;

import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Nats;
import io.nats.client.Options;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The NATS fan-out peer, smallest form: one publisher connection sends {@code messages}
 * messages of {@code size} bytes (a big-endian sequence number in the first 8) on one subject,
 * one subscriber connection receives them through a dispatcher and checks that every sequence
 * arrives once and in order. Prints one machine-readable line and exits 0 only when all
 * arrived in order.
 *
 * <p>Usage: {@code NatsSmoke URL [MESSAGES] [SIZE] [TIMEOUT_S]}.
 *
 * <p>NATS core is at-most-once: a subscriber that falls behind its pending limits loses
 * messages (the client counts them as dropped), so the limits are raised above the run's size
 * and any loss is reported instead of hidden. Each publish gets a fresh array because the
 * client may keep a reference to it until it is written to the socket.
 */
public final class NatsSmoke
{
    private static final String SUBJECT = "mdfanout.bench.smoke";

    private NatsSmoke()
    {
    }

    /**
     * Runs the publish/subscribe round.
     *
     * @param args URL, then optionally message count, message size in bytes and timeout in seconds.
     * @throws Exception when the server cannot be reached.
     */
    public static void main(final String[] args) throws Exception
    {
        if (args.length < 1 || args.length > 4)
        {
            System.err.println("usage: NatsSmoke URL [MESSAGES=1000000] [SIZE=40] [TIMEOUT_S=120]");
            System.exit(2);
        }
        final String url = args[0];
        final int messages = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        final int size = args.length > 2 ? Integer.parseInt(args[2]) : 40;
        final long timeoutS = args.length > 3 ? Long.parseLong(args[3]) : 120;
        if (messages < 1 || size < Long.BYTES)
        {
            System.err.println("NatsSmoke: MESSAGES must be >= 1 and SIZE >= 8, got " + messages + " and " + size);
            System.exit(2);
        }

        final Options options = new Options.Builder()
            .server(url)
            .connectionTimeout(Duration.ofSeconds(5))
            .noReconnect()
            .build();

        try (Connection subscriber = Nats.connect(options); Connection publisher = Nats.connect(options))
        {
            final SequenceChecker checker = new SequenceChecker(messages);
            final Dispatcher dispatcher = subscriber.createDispatcher(msg -> checker.onMessage(msg.getData()));
            dispatcher.setPendingLimits(4L * messages, 4L * messages * (size + 64L));
            dispatcher.subscribe(SUBJECT);
            // The subscription must be registered on the server before the first publish.
            subscriber.flush(Duration.ofSeconds(5));

            final long startNs = System.nanoTime();
            for (int i = 1; i <= messages; i++)
            {
                final byte[] payload = new byte[size];
                writeLongBigEndian(payload, i);
                publisher.publish(SUBJECT, payload);
            }
            publisher.flush(Duration.ofSeconds(timeoutS));
            final long publishedNs = System.nanoTime() - startNs;

            final boolean complete = checker.awaitAll(timeoutS);
            final long elapsedNs = Math.max(1, checker.lastReceiveNs() - startNs);
            final long received = checker.received();
            final long dropped = dispatcher.getDroppedCount();
            final double seconds = elapsedNs / 1e9;
            System.out.printf(
                "nats: messages=%d size=%d received=%d lost=%d out_of_order=%d dropped=%d msgs_per_s=%.0f " +
                "MB_per_s=%.1f publish_msgs_per_s=%.0f seconds=%.3f%n",
                messages, size, received, messages - received, checker.outOfOrder(), dropped,
                received / seconds, received * (double)size / seconds / 1e6,
                messages / (publishedNs / 1e9), seconds);
            if (!complete || checker.outOfOrder() != 0)
            {
                System.err.println("NatsSmoke: " + (messages - received) + " messages lost, " +
                    checker.outOfOrder() + " out of order");
                System.exit(1);
            }
        }
    }

    static void writeLongBigEndian(final byte[] buffer, final long value)
    {
        for (int i = 0; i < Long.BYTES; i++)
        {
            buffer[i] = (byte)(value >>> (56 - 8 * i));
        }
    }

    static long readLongBigEndian(final byte[] buffer)
    {
        long value = 0;
        for (int i = 0; i < Long.BYTES; i++)
        {
            value = (value << 8) | (buffer[i] & 0xFF);
        }
        return value;
    }

    /** Single writer (the dispatcher thread); the main thread reads after the latch. */
    static final class SequenceChecker
    {
        private final long expectedMessages;
        private final CountDownLatch done = new CountDownLatch(1);
        private volatile long received;
        private volatile long outOfOrder;
        private volatile long lastReceiveNs;
        private long nextSequence = 1;

        SequenceChecker(final long expectedMessages)
        {
            this.expectedMessages = expectedMessages;
        }

        void onMessage(final byte[] data)
        {
            final long sequence = data != null && data.length >= Long.BYTES ? readLongBigEndian(data) : -1;
            if (sequence != nextSequence)
            {
                outOfOrder = outOfOrder + 1;
            }
            nextSequence = sequence + 1;
            lastReceiveNs = System.nanoTime();
            final long count = received + 1;
            received = count;
            if (count == expectedMessages)
            {
                done.countDown();
            }
        }

        boolean awaitAll(final long timeoutS) throws InterruptedException
        {
            return done.await(timeoutS, TimeUnit.SECONDS);
        }

        long received()
        {
            return received;
        }

        long outOfOrder()
        {
            return outOfOrder;
        }

        long lastReceiveNs()
        {
            return lastReceiveNs;
        }
    }
}
