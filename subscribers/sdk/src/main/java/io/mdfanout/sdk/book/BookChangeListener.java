package io.mdfanout.sdk.book;

import io.mdfanout.sdk.MessageContext;

/**
 * Told by {@link OrderBooks} after a message changed a book: the place to act on a book as it now is (a strategy's
 * quote, a derived stream's top of book) without telling the messages that change books from those that do not.
 * Called on the polling thread, once per message that changed a book, after the change.
 */
@FunctionalInterface
public interface BookChangeListener
{
    /**
     * A book changed.
     *
     * @param context the message that changed it; for a book a snapshot restored, the snapshot's last message, with
     *                {@link MessageContext#isSnapshot()} true.
     * @param book    the book, as it is after the change; valid until the next message.
     * @param depth   the shallowest price level that changed, on either side (0 = the best bid or offer): levels
     *                above it are as they were, so a change at depth 10 or more leaves the first ten levels alone.
     */
    void onBookChanged(MessageContext context, OrderBook book, int depth);
}
