package io.mdfanout.feed.support;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Builds MoldUDP64 datagrams by hand: 10-byte session, 8-byte sequence, 2-byte count, blocks. */
public final class MoldPackets
{
    private MoldPackets()
    {
    }

    public static byte[] packet(final String session, final long sequence, final byte[]... messages)
    {
        return packetWithCount(session, sequence, messages.length, messages);
    }

    public static byte[] heartbeat(final String session, final long nextSequence)
    {
        return packetWithCount(session, nextSequence, 0);
    }

    public static byte[] endOfSession(final String session, final long nextSequence)
    {
        return packetWithCount(session, nextSequence, 0xFFFF);
    }

    public static byte[] packetWithCount(
        final String session, final long sequence, final int count, final byte[]... messages)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final byte[] s = (session + "          ").substring(0, 10).getBytes(StandardCharsets.US_ASCII);
        out.writeBytes(s);
        for (int i = 7; i >= 0; i--)
        {
            out.write((int)(sequence >>> (8 * i)));
        }
        out.write(count >>> 8);
        out.write(count);
        for (final byte[] m : messages)
        {
            out.write(m.length >>> 8);
            out.write(m.length);
            out.writeBytes(m);
        }
        return out.toByteArray();
    }
}
