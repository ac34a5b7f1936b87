package io.mdfanout.sdk.derive;

import io.mdfanout.wire.FeedStream;
import org.agrona.DirectBuffer;

/**
 * Receives each message a {@link Derivation} derives, encoded in SBE (header included) as it goes on the wire.
 */
@FunctionalInterface
public interface DerivedHandler
{
    /**
     * One derived message.
     *
     * @param stream the stream it belongs to.
     * @param buffer holding it; valid during the call only.
     * @param offset of its SBE header.
     * @param length header and block.
     */
    void onDerived(FeedStream stream, DirectBuffer buffer, int offset, int length);
}
