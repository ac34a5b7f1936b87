package io.mdfanout.wire;

/**
 * Home slots for order ids in an open-addressing table of a power-of-two size, keeping nearby ids
 * in nearby slots. ITCH order reference numbers rise through the day, so the live orders are mostly
 * recent ids. The ids of one block of {@value #BLOCK_SLOTS} consecutive ids get distinct slots of
 * one {@value #BLOCK_SLOTS}-slot block of the table, in order (cyclically): none of them collide,
 * and with 16-byte entries a block is one 4 KiB page, so the live orders sit on a few hundred pages
 * that the TLB and caches keep. The block number is mixed (MurmurHash3's finaliser): its low bits
 * choose the table block and its top bits rotate the ids within it, so that blocks land at random
 * and patterned ids (every 256th, every 1,000th) still spread over the table.
 * <p>
 * Mixing every bit of the id instead (what general-purpose maps do) puts each lookup on a random
 * page of a table sized for the most orders expected: a TLB and cache miss per message, a large
 * share of the fanout's time and most of the SDK's book building with room for a million orders
 * (the figures: docs/bench/CODE-NOTES.md).
 */
public final class OrderIdHash
{
    /** Low bits of an order id that keep their order within a block of the table. */
    public static final int BLOCK_BITS = 8;
    /** Slots in a block: 256 entries of 16 bytes are one 4 KiB page. */
    public static final int BLOCK_SLOTS = 1 << BLOCK_BITS;

    private OrderIdHash()
    {
    }

    /**
     * @param orderId the order id.
     * @param mask    the table's capacity minus one (a power of two minus one).
     * @return the slot where probing for the order starts.
     */
    public static int home(final long orderId, final int mask)
    {
        long h = orderId >>> BLOCK_BITS;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        final long slotInBlock = (orderId + (h >>> (64 - BLOCK_BITS))) & (BLOCK_SLOTS - 1);
        return (int)((h << BLOCK_BITS) | slotInBlock) & mask;
    }
}
