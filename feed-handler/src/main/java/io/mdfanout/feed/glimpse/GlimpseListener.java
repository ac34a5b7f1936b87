package io.mdfanout.feed.glimpse;

import org.agrona.DirectBuffer;

/**
 * Receives the messages of a GLIMPSE 5.0 spin, in order, as {@link GlimpseClient#load} reads them.
 */
@FunctionalInterface
public interface GlimpseListener
{
    /**
     * One ITCH 5.0 message of the snapshot (System Event, Stock Directory, Stock Trading Action, Reg SHO, Add Order
     * and so on; never the End of Snapshot, which ends the load). The bytes are only valid during the call.
     *
     * @param buffer holding the message.
     * @param offset of its message type byte.
     * @param length of the message.
     */
    void onMessage(DirectBuffer buffer, int offset, int length);
}
