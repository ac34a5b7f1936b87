package io.mdfanout.feed.sim;

import org.agrona.DirectBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * Test support for GLIMPSE: builds a {@link ReferenceBook} from ITCH 5.0 message bytes (a snapshot's spin) and from
 * the generator's session (the live feed from a sequence number on), so that "snapshot, then the feed from End of
 * Snapshot" can be compared with the whole session's book.
 */
public final class ItchBookReplay
{
    private final ReferenceBook book = new ReferenceBook();
    private final ItchEvent event = new ItchEvent();
    private long messages;

    /**
     * Applies one message given as bytes; types other than A F E C X D U leave the book alone.
     *
     * @param buffer holding the message.
     * @param offset of its type byte.
     * @param length its length.
     */
    public void apply(final DirectBuffer buffer, final int offset, final int length)
    {
        messages++;
        event.reset();
        event.type = (char)buffer.getByte(offset);
        event.stockLocate = buffer.getShort(offset + 1, BIG_ENDIAN) & 0xFFFF;
        switch (event.type)
        {
            case 'A':
            case 'F':
                event.orderReferenceNumber = buffer.getLong(offset + 11, BIG_ENDIAN);
                event.side = (char)buffer.getByte(offset + 19);
                event.shares = u32(buffer, offset + 20);
                event.price = u32(buffer, offset + 32);
                break;
            case 'E':
            case 'C':
            case 'X':
                event.orderReferenceNumber = buffer.getLong(offset + 11, BIG_ENDIAN);
                event.shares = u32(buffer, offset + 19);
                break;
            case 'D':
                event.orderReferenceNumber = buffer.getLong(offset + 11, BIG_ENDIAN);
                break;
            case 'U':
                event.orderReferenceNumber = buffer.getLong(offset + 11, BIG_ENDIAN);
                event.newOrderReferenceNumber = buffer.getLong(offset + 19, BIG_ENDIAN);
                event.shares = u32(buffer, offset + 27);
                event.price = u32(buffer, offset + 31);
                break;
            default:
                return;
        }
        book.apply(event);
    }

    /**
     * Applies the generator's session from a sequence number on: the live feed a late joiner continues with.
     *
     * @param seed          the session's seed.
     * @param symbols       its symbols.
     * @param count         its message count.
     * @param firstSequence the first sequence number applied.
     */
    public void applySession(final long seed, final int symbols, final long count, final long firstSequence)
    {
        final SessionGenerator generator =
            new SessionGenerator(seed, new SessionConfig().symbols(symbols).messageCount(count));
        final ItchEvent live = new ItchEvent();
        for (long sequence = 1; generator.next(live); sequence++)
        {
            if (sequence >= firstSequence)
            {
                book.apply(live);
            }
        }
    }

    /**
     * The book.
     *
     * @return the book.
     */
    public ReferenceBook book()
    {
        return book;
    }

    /**
     * Messages given as bytes.
     *
     * @return the count.
     */
    public long messages()
    {
        return messages;
    }

    /**
     * The whole session's book dump.
     *
     * @param seed    the session's seed.
     * @param symbols its symbols.
     * @param count   its message count.
     * @return {@link ReferenceBook#dump()} after every message.
     */
    public static String sessionDump(final long seed, final int symbols, final long count)
    {
        final ItchBookReplay replay = new ItchBookReplay();
        replay.applySession(seed, symbols, count, 1);
        return replay.book.dump();
    }

    private static long u32(final DirectBuffer buffer, final int index)
    {
        return buffer.getInt(index, BIG_ENDIAN) & 0xFFFF_FFFFL;
    }
}
