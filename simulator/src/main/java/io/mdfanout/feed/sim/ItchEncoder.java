package io.mdfanout.feed.sim;

import org.agrona.MutableDirectBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * Writes an {@link ItchEvent} as NASDAQ TotalView-ITCH 5.0 bytes: big-endian integers, a 6-byte
 * timestamp, ASCII alpha fields, at the offsets and lengths of the specification.
 * <p>
 * Deliberately independent of the feed handler's decoder so that the two cross-check each other.
 * Stateless and allocation-free.
 */
public final class ItchEncoder
{
    /** The longest ITCH 5.0 message (I, 50 bytes). */
    public static final int MAX_MESSAGE_LENGTH = 50;

    private static final int HEADER_LENGTH = 11;

    private ItchEncoder()
    {
    }

    /**
     * Total length of a message of the given type, header included.
     *
     * @param type the ITCH message type letter.
     * @return the length in bytes, or -1 if the type is not an ITCH 5.0 message.
     */
    public static int messageLength(final char type)
    {
        switch (type)
        {
            case 'S': return 12;
            case 'R': return 39;
            case 'H': return 25;
            case 'Y': return 20;
            case 'L': return 26;
            case 'V': return 35;
            case 'W': return 12;
            case 'K': return 28;
            case 'J': return 35;
            case 'h': return 21;
            case 'A': return 36;
            case 'F': return 40;
            case 'E': return 31;
            case 'C': return 36;
            case 'X': return 23;
            case 'D': return 19;
            case 'U': return 35;
            case 'P': return 44;
            case 'Q': return 40;
            case 'B': return 19;
            case 'I': return 50;
            case 'N': return 20;
            case 'O': return 48;
            default: return -1;
        }
    }

    /**
     * Encodes one message.
     *
     * @param event  the message to write.
     * @param buffer the destination.
     * @param offset where the message type byte goes.
     * @return the number of bytes written.
     * @throws IllegalArgumentException if {@code event.type} is not an ITCH 5.0 message type.
     */
    public static int encode(final ItchEvent event, final MutableDirectBuffer buffer, final int offset)
    {
        final int length = messageLength(event.type);
        if (length < 0)
        {
            throw new IllegalArgumentException("not an ITCH 5.0 message type: " + (int)event.type);
        }

        buffer.putByte(offset, (byte)event.type);
        putU16(buffer, offset + 1, event.stockLocate);
        putU16(buffer, offset + 3, event.trackingNumber);
        putTimestamp(buffer, offset + 5, event.timestamp);

        final int o = offset;
        switch (event.type)
        {
            case 'S':
                putChar(buffer, o + 11, event.eventCode);
                break;

            case 'R':
                buffer.putBytes(o + 11, event.stock, 0, 8);
                putChar(buffer, o + 19, event.marketCategory);
                putChar(buffer, o + 20, event.financialStatusIndicator);
                putU32(buffer, o + 21, event.roundLotSize);
                putChar(buffer, o + 25, event.roundLotsOnly);
                putChar(buffer, o + 26, event.issueClassification);
                buffer.putBytes(o + 27, event.issueSubType, 0, 2);
                putChar(buffer, o + 29, event.authenticity);
                putChar(buffer, o + 30, event.shortSaleThresholdIndicator);
                putChar(buffer, o + 31, event.ipoFlag);
                putChar(buffer, o + 32, event.luldReferencePriceTier);
                putChar(buffer, o + 33, event.etpFlag);
                putU32(buffer, o + 34, event.etpLeverageFactor);
                putChar(buffer, o + 38, event.inverseIndicator);
                break;

            case 'H':
                buffer.putBytes(o + 11, event.stock, 0, 8);
                putChar(buffer, o + 19, event.tradingState);
                putChar(buffer, o + 20, event.reserved);
                buffer.putBytes(o + 21, event.reason, 0, 4);
                break;

            case 'Y':
                buffer.putBytes(o + 11, event.stock, 0, 8);
                putChar(buffer, o + 19, event.regShoAction);
                break;

            case 'L':
                buffer.putBytes(o + 11, event.mpid, 0, 4);
                buffer.putBytes(o + 15, event.stock, 0, 8);
                putChar(buffer, o + 23, event.primaryMarketMaker);
                putChar(buffer, o + 24, event.marketMakerMode);
                putChar(buffer, o + 25, event.marketParticipantState);
                break;

            case 'V':
                buffer.putLong(o + 11, event.level1Price, BIG_ENDIAN);
                buffer.putLong(o + 19, event.level2Price, BIG_ENDIAN);
                buffer.putLong(o + 27, event.level3Price, BIG_ENDIAN);
                break;

            case 'W':
                putChar(buffer, o + 11, event.breachedLevel);
                break;

            case 'K':
                buffer.putBytes(o + 11, event.stock, 0, 8);
                putU32(buffer, o + 19, event.ipoQuotationReleaseTime);
                putChar(buffer, o + 23, event.ipoQuotationReleaseQualifier);
                putU32(buffer, o + 24, event.ipoPrice);
                break;

            case 'J':
                buffer.putBytes(o + 11, event.stock, 0, 8);
                putU32(buffer, o + 19, event.auctionCollarReferencePrice);
                putU32(buffer, o + 23, event.upperAuctionCollarPrice);
                putU32(buffer, o + 27, event.lowerAuctionCollarPrice);
                putU32(buffer, o + 31, event.auctionCollarExtension);
                break;

            case 'h':
                buffer.putBytes(o + 11, event.stock, 0, 8);
                putChar(buffer, o + 19, event.marketCode);
                putChar(buffer, o + 20, event.operationalHaltAction);
                break;

            case 'A':
            case 'F':
                buffer.putLong(o + 11, event.orderReferenceNumber, BIG_ENDIAN);
                putChar(buffer, o + 19, event.side);
                putU32(buffer, o + 20, event.shares);
                buffer.putBytes(o + 24, event.stock, 0, 8);
                putU32(buffer, o + 32, event.price);
                if ('F' == event.type)
                {
                    buffer.putBytes(o + 36, event.attribution, 0, 4);
                }
                break;

            case 'E':
                buffer.putLong(o + 11, event.orderReferenceNumber, BIG_ENDIAN);
                putU32(buffer, o + 19, event.shares);
                buffer.putLong(o + 23, event.matchNumber, BIG_ENDIAN);
                break;

            case 'C':
                buffer.putLong(o + 11, event.orderReferenceNumber, BIG_ENDIAN);
                putU32(buffer, o + 19, event.shares);
                buffer.putLong(o + 23, event.matchNumber, BIG_ENDIAN);
                putChar(buffer, o + 31, event.printable);
                putU32(buffer, o + 32, event.price);
                break;

            case 'X':
                buffer.putLong(o + 11, event.orderReferenceNumber, BIG_ENDIAN);
                putU32(buffer, o + 19, event.shares);
                break;

            case 'D':
                buffer.putLong(o + 11, event.orderReferenceNumber, BIG_ENDIAN);
                break;

            case 'U':
                buffer.putLong(o + 11, event.orderReferenceNumber, BIG_ENDIAN);
                buffer.putLong(o + 19, event.newOrderReferenceNumber, BIG_ENDIAN);
                putU32(buffer, o + 27, event.shares);
                putU32(buffer, o + 31, event.price);
                break;

            case 'P':
                buffer.putLong(o + 11, event.orderReferenceNumber, BIG_ENDIAN);
                putChar(buffer, o + 19, event.side);
                putU32(buffer, o + 20, event.shares);
                buffer.putBytes(o + 24, event.stock, 0, 8);
                putU32(buffer, o + 32, event.price);
                buffer.putLong(o + 36, event.matchNumber, BIG_ENDIAN);
                break;

            case 'Q':
                buffer.putLong(o + 11, event.longShares, BIG_ENDIAN);
                buffer.putBytes(o + 19, event.stock, 0, 8);
                putU32(buffer, o + 27, event.price);
                buffer.putLong(o + 31, event.matchNumber, BIG_ENDIAN);
                putChar(buffer, o + 39, event.crossType);
                break;

            case 'B':
                buffer.putLong(o + 11, event.matchNumber, BIG_ENDIAN);
                break;

            case 'I':
                buffer.putLong(o + 11, event.pairedShares, BIG_ENDIAN);
                buffer.putLong(o + 19, event.imbalanceShares, BIG_ENDIAN);
                putChar(buffer, o + 27, event.imbalanceDirection);
                buffer.putBytes(o + 28, event.stock, 0, 8);
                putU32(buffer, o + 36, event.farPrice);
                putU32(buffer, o + 40, event.nearPrice);
                putU32(buffer, o + 44, event.currentReferencePrice);
                putChar(buffer, o + 48, event.crossType);
                putChar(buffer, o + 49, event.priceVariationIndicator);
                break;

            case 'N':
                buffer.putBytes(o + 11, event.stock, 0, 8);
                putChar(buffer, o + 19, event.interestFlag);
                break;

            case 'O':
                buffer.putBytes(o + 11, event.stock, 0, 8);
                putChar(buffer, o + 19, event.openEligibilityStatus);
                putU32(buffer, o + 20, event.minimumAllowablePrice);
                putU32(buffer, o + 24, event.maximumAllowablePrice);
                putU32(buffer, o + 28, event.nearExecutionPrice);
                buffer.putLong(o + 32, event.nearExecutionTime, BIG_ENDIAN);
                putU32(buffer, o + 40, event.lowerPriceRangeCollar);
                putU32(buffer, o + 44, event.upperPriceRangeCollar);
                break;

            default:
                break;
        }

        return length;
    }

    /**
     * Writes a 6-byte big-endian timestamp (nanoseconds since midnight).
     *
     * @param buffer    the destination.
     * @param index     where its first byte goes.
     * @param timestamp the value; only its low 48 bits are written.
     */
    public static void putTimestamp(final MutableDirectBuffer buffer, final int index, final long timestamp)
    {
        buffer.putShort(index, (short)(timestamp >>> 32), BIG_ENDIAN);
        buffer.putInt(index + 2, (int)timestamp, BIG_ENDIAN);
    }

    private static void putU16(final MutableDirectBuffer buffer, final int index, final int value)
    {
        buffer.putShort(index, (short)value, BIG_ENDIAN);
    }

    private static void putU32(final MutableDirectBuffer buffer, final int index, final long value)
    {
        buffer.putInt(index, (int)value, BIG_ENDIAN);
    }

    private static void putChar(final MutableDirectBuffer buffer, final int index, final char value)
    {
        buffer.putByte(index, (byte)value);
    }
}
