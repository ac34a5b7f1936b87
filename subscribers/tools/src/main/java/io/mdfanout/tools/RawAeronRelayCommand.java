package io.mdfanout.tools;

import io.aeron.ExclusivePublication;
import io.mdfanout.feed.itch.ItchMessage;
import io.mdfanout.feed.moldudp.MoldUdp64Packet;
import io.mdfanout.feed.moldudp.MulticastLine;
import io.mdfanout.wire.ExitCodes;
import io.mdfanout.wire.PreciseEpochNanoClock;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code raw-aeron-relay}: the raw-Aeron baseline with the chain's hops. Receives the simulator's MoldUDP64
 * datagrams from a multicast group, as the feed handler does, and offers each ITCH message as a
 * {@link RawAeronMessage} on a plain Aeron publication to {@code raw-aeron-sub}: the same UDP hop in and the same
 * Aeron hop out as the chain, and nothing between them (no decode beyond the framing, no ring, no second thread, no
 * state, no SBE). Each message carries the simulator's stamp (the pacer's scheduled send time, run with
 * {@code simulator --latency-timestamps}) or, with {@code --stamp-receive-time}, the time its datagram was received,
 * the counterpart of the feed handler's flag: both systems' clocks then start at the same point. A message's
 * sequence is its MoldUDP64 sequence number less one, so {@code raw-aeron-sub} counts what the socket lost.
 * With {@code --batch} a datagram's messages go in one offer, as the fanout packs what its ring holds.
 * The end of the session ends the run with the end marker.
 */
@Command(name = "raw-aeron-relay", hidden = true, mixinStandardHelpOptions = true, showDefaultValues = true,
    description = "Benchmark baseline: relay the simulator's MoldUDP64 messages over plain Aeron, the chain's hops " +
        "with nothing between them.")
public final class RawAeronRelayCommand implements Callable<Integer>
{
    /** The largest datagram read; MoldUDP64 packets are MTU-sized. */
    static final int MAX_DATAGRAM_LENGTH = 65_536;
    /** Datagrams read per duty cycle at most, so that a flood still lets the loop check its deadline. */
    static final int DATAGRAMS_PER_POLL = 64;
    /** The feed handler's default socket receive buffer, so that both sockets drop alike. */
    static final int DEFAULT_RCVBUF_BYTES = MulticastLine.DEFAULT_RECEIVE_BUFFER_BYTES;

    @Option(names = "--group", defaultValue = "239.1.1.1", description = "Multicast group of the simulator's line.")
    String group;

    @Option(names = "--port", defaultValue = "26400", description = "UDP port of the simulator's line.")
    int port;

    @Option(names = "--interface", defaultValue = "127.0.0.1", description = "Address of the interface to join on.")
    String interfaceAddress;

    @Option(names = "--receive-buffer-bytes", defaultValue = "" + DEFAULT_RCVBUF_BYTES,
        description = "Socket receive buffer asked for (the feed handler's default; the kernel caps it at rmem_max).")
    int receiveBufferBytes;

    @Option(names = "--channel", defaultValue = RawAeronMessage.DEFAULT_CHANNEL, description = "Aeron channel.")
    String channel;

    @Option(names = "--stream-id", defaultValue = RawAeronMessage.DEFAULT_STREAM_ID, description = "Aeron stream id.")
    int streamId;

    @Option(names = "--message-length", defaultValue = "48",
        description = "Bytes per relayed message (our typical normalized SBE message with its header), at least 16.")
    int messageLength;

    @Option(names = "--batch", description = "Offer a datagram's messages in one offer (up to one MTU), as the fanout " +
        "packs what its ring holds (raw-aeron-sub --message-length splits them again). Off: one message per offer.")
    boolean batch;

    @Option(names = "--stamp-receive-time", description = "Stamp each message with its datagram's receive time " +
        "instead of the simulator's stamp, as the feed handler's --stamp-receive-time does.")
    boolean stampReceiveTime;

    @Option(names = "--connect-timeout-s", defaultValue = "60",
        description = "Give up when no subscriber has connected within this time.")
    long connectTimeoutS;

    @Option(names = "--timeout-s", defaultValue = "0",
        description = "Give up after this many seconds with exit code 5 (0 = no limit).")
    long timeoutS;

    @Option(names = "--ready-file", description = "Create this file once the socket is joined and the publication " +
        "connected: the simulator may start.")
    Path readyFile;

    @Mixin
    IdleOptions idleOptions = new IdleOptions();

    @Option(names = "--aeron-dir",
        description = "Aeron directory of an external media driver; absent = launch an embedded driver.")
    String aeronDir;

    PrintStream stdout = System.out;
    PrintStream stderr = System.err;

    /** {@inheritDoc} */
    public Integer call()
    {
        final InetAddress groupAddress;
        final NetworkInterface networkInterface;
        try
        {
            if (port < 1 || port > 65_535 || messageLength < RawAeronMessage.MIN_LENGTH || connectTimeoutS <= 0 ||
                timeoutS < 0 || receiveBufferBytes <= 0 || !channel.startsWith("aeron:"))
            {
                throw new IllegalArgumentException("need 1 <= --port <= 65535, --message-length >= " +
                    RawAeronMessage.MIN_LENGTH + ", --connect-timeout-s > 0, --timeout-s >= 0, " +
                    "--receive-buffer-bytes > 0 and an Aeron --channel (" + channel + ")");
            }
            idleOptions.validate();
            groupAddress = InetAddress.getByName(group);
            if (!groupAddress.isMulticastAddress())
            {
                throw new IllegalArgumentException("--group is not a multicast address: " + group);
            }
            networkInterface = NetworkInterface.getByInetAddress(InetAddress.getByName(interfaceAddress));
            if (null == networkInterface)
            {
                throw new IllegalArgumentException("no interface has the address " + interfaceAddress);
            }
        }
        catch (final IllegalArgumentException | IOException ex)
        {
            stderr.println("raw-aeron-relay: " + ex.getMessage());
            return ExitCodes.CONFIG;
        }

        DatagramChannel socket = null;
        try (StopSignal stopSignal = new StopSignal();
            ToolMedia media = ToolMedia.connect(aeronDir, idleOptions, true);
            ExclusivePublication publication =
                media.aeron().addExclusivePublication(RawAeronPubCommand.notSparse(channel), streamId))
        {
            if (messageLength > publication.maxPayloadLength())
            {
                stderr.println("raw-aeron-relay: --message-length " + messageLength + " exceeds one frame (" +
                    publication.maxPayloadLength() + ")");
                return ExitCodes.CONFIG;
            }
            socket = join(groupAddress, networkInterface);
            final IdleStrategy idle = media.pollIdle(idleOptions.newIdleStrategy());
            if (!RawAeronOffers.awaitConnected(publication, idle, stopSignal, connectTimeoutS))
            {
                stderr.println("raw-aeron-relay: no subscriber connected on " + channel + " stream " + streamId);
                return ExitCodes.TIMEOUT;
            }
            if (null != readyFile)
            {
                Files.deleteIfExists(readyFile);
                Files.createFile(readyFile);
            }

            final RawAeronOffers offers = new RawAeronOffers(publication, idle, stopSignal, connectTimeoutS);
            final int capacity = batch ? publication.maxPayloadLength() / messageLength * messageLength : messageLength;
            final PacketRelay relay = new PacketRelay(new PreciseEpochNanoClock(), messageLength, capacity,
                stampReceiveTime, offers::offer);
            final ByteBuffer datagram = ByteBuffer.allocateDirect(MAX_DATAGRAM_LENGTH);
            final UnsafeBuffer datagramBuffer = new UnsafeBuffer(datagram);
            final long deadline = timeoutS > 0 ? System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS) : Long.MAX_VALUE;
            final long startNs = System.nanoTime();
            boolean timedOut = false;
            while (stopSignal.isRunning() && !relay.ended())
            {
                int work = 0;
                for (int i = 0; i < DATAGRAMS_PER_POLL && !relay.ended(); i++)
                {
                    datagram.clear();
                    if (null == socket.receive(datagram))
                    {
                        break;
                    }
                    relay.onDatagram(datagramBuffer, 0, datagram.position());
                    work++;
                }
                if (0 == work && System.nanoTime() > deadline)
                {
                    timedOut = true;
                    break;
                }
                idle.idle(work);
            }
            final double elapsedS = (System.nanoTime() - startNs) / 1e9;

            final UnsafeBuffer end = new UnsafeBuffer(new byte[messageLength]);
            end.putLong(RawAeronMessage.SEQUENCE_OFFSET, RawAeronMessage.END_SEQUENCE, ByteOrder.LITTLE_ENDIAN);
            offers.offer(end, messageLength);
            offers.linger();
            stdout.printf(Locale.ROOT, "raw-aeron-relay: done: datagrams=%d messages=%d missing=%d malformed=%d " +
                "offers=%d backPressured=%d elapsed=%.3fs ended=%b%s%n", relay.datagrams(), relay.messages(),
                relay.missing(), relay.malformed(), offers.offers(), offers.backPressured(), elapsedS, relay.ended(),
                timedOut ? " (timed out)" : "");
            return timedOut ? ExitCodes.TIMEOUT : relay.ended() && 0 == relay.missing() ? ExitCodes.OK : ExitCodes.DATA_LOSS;
        }
        catch (final RuntimeException | IOException ex)
        {
            stderr.println("raw-aeron-relay: " + ex.getMessage());
            return ExitCodes.FAILURE;
        }
        finally
        {
            CloseHelper.quietClose(socket);
        }
    }

    private DatagramChannel join(final InetAddress groupAddress, final NetworkInterface networkInterface)
        throws IOException
    {
        try
        {
            return MulticastLine.open(groupAddress, port, networkInterface, null, receiveBufferBytes);
        }
        catch (final IOException ex)
        {
            throw new IOException("cannot receive " + group + ":" + port + " on " + interfaceAddress + ": " +
                ex.getMessage(), ex);
        }
    }

    /** Where the relay's offers go. */
    @FunctionalInterface
    interface Sink
    {
        /**
         * Take {@code length} bytes from offset 0 of the buffer (one message, or a batch of them).
         *
         * @param buffer holding the offer.
         * @param length of the offer.
         */
        void offer(DirectBuffer buffer, int length);
    }

    /**
     * One datagram in, its messages out as {@link RawAeronMessage}s; allocation-free. A malformed datagram (too
     * short for its header, or a block past its end, or a message too short for an ITCH timestamp) is counted, and
     * its messages from the bad block on are not relayed: {@code raw-aeron-sub} then counts them missing.
     */
    static final class PacketRelay
    {
        private static final int TIMESTAMP_END = ItchMessage.TIMESTAMP_OFFSET + 6;

        private final MoldUdp64Packet packet = new MoldUdp64Packet();
        private final EpochNanoClock clock;
        private final int messageLength;
        private final int capacity;
        private final boolean stampReceiveTime;
        private final Sink sink;
        private final UnsafeBuffer out;
        private int outLength;
        private long nextSequence = 1;
        private long datagrams;
        private long messages;
        private long missing;
        private long malformed;
        private boolean ended;

        PacketRelay(
            final EpochNanoClock clock, final int messageLength, final int capacity, final boolean stampReceiveTime,
            final Sink sink)
        {
            this.clock = clock;
            this.messageLength = messageLength;
            this.capacity = capacity;
            this.stampReceiveTime = stampReceiveTime;
            this.sink = sink;
            out = new UnsafeBuffer(BufferUtil.allocateDirectAligned(BitUtil.align(Math.max(capacity, 64), 64), 64));
        }

        void onDatagram(final DirectBuffer buffer, final int offset, final int length)
        {
            datagrams++;
            packet.wrap(buffer, offset, length);
            if (packet.isTruncated())
            {
                malformed++;
                return;
            }
            if (packet.isEndOfSession())
            {
                ended = true;
                return;
            }
            if (packet.isHeartbeat())
            {
                return;
            }
            final long nowNs = clock.nanoTime();
            final long first = packet.sequenceNumber();
            if (first > nextSequence)
            {
                missing += first - nextSequence;
            }
            final int count = packet.messageCount();
            final int limit = packet.limit();
            int at = packet.firstBlockOffset();
            for (int i = 0; i < count; i++)
            {
                final int blockLength = at + MoldUdp64Packet.BLOCK_LENGTH_FIELD_LENGTH <= limit ? packet.blockLength(at) : -1;
                final int message = at + MoldUdp64Packet.BLOCK_LENGTH_FIELD_LENGTH;
                if (blockLength < TIMESTAMP_END || message + blockLength > limit)
                {
                    malformed++;
                    break;
                }
                final long stampNs = stampReceiveTime ? nowNs :
                    nowNs - LatencyRecorder.sinceTimeOfDay(nowNs, ItchMessage.timestamp(buffer, message));
                append(stampNs, first + i - 1);
                at = message + blockLength;
            }
            nextSequence = Math.max(nextSequence, first + count);
            flush();
        }

        private void append(final long stampNs, final long sequence)
        {
            out.putLong(outLength + RawAeronMessage.SCHEDULED_TIME_OFFSET, stampNs, ByteOrder.LITTLE_ENDIAN);
            out.putLong(outLength + RawAeronMessage.SEQUENCE_OFFSET, sequence, ByteOrder.LITTLE_ENDIAN);
            outLength += messageLength;
            messages++;
            if (outLength == capacity)
            {
                flush();
            }
        }

        private void flush()
        {
            if (outLength > 0)
            {
                sink.offer(out, outLength);
                outLength = 0;
            }
        }

        boolean ended()
        {
            return ended;
        }

        long datagrams()
        {
            return datagrams;
        }

        long messages()
        {
            return messages;
        }

        long missing()
        {
            return missing;
        }

        long malformed()
        {
            return malformed;
        }
    }

    /**
     * Run from the command line (ad-hoc; the mdfanout CLI registers this command).
     *
     * @param args command-line arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(new CommandLine(new RawAeronRelayCommand()).execute(args));
    }
}
