package io.mdfanout.feed.replay;

import org.agrona.DirectBuffer;

import java.util.ArrayList;
import java.util.List;

/** Copies every UDP payload it is handed, for assertions. */
final class CollectingHandler implements DatagramHandler
{
    final List<byte[]> payloads = new ArrayList<>();

    public void onDatagram(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] copy = new byte[length];
        buffer.getBytes(offset, copy);
        payloads.add(copy);
    }
}
