package io.mdfanout.feed.sim;

/**
 * Generates a realistic, deterministic NASDAQ TotalView-ITCH 5.0 session from a seed and a {@link SessionConfig}.
 * <p>
 * Shape: S 'O', S 'S', V, an R per symbol, Y for every 8th symbol, L for every 4th, H 'T' per symbol, S 'Q'; then
 * the main body drawn from the configured mix (adds near a random-walking mid price, executions, cancels,
 * deletes, replaces, trades, crosses, breaks, NOII, halts and resumes, and the rare types); then S 'M', a closing
 * cross Q per symbol, S 'E' and S 'C', which is exactly message number {@code messageCount}. With a message
 * count of 0 the body never ends.
 * <p>
 * The book stays consistent: E, C, X, D and U only refer to live orders of the same stock locate, never execute
 * or cancel more than their remaining shares (X always leaves at least one share; a full cancel is a D), and a
 * fully executed order leaves the book. Order reference numbers and match numbers are unique and increasing;
 * timestamps (nanoseconds since midnight, from 04:00) strictly increase. Bids rest at or below the symbol's mid
 * price, asks above it, all prices positive on a $0.01 tick; the mid random-walks, but only once the level in its
 * way has been executed away, so books never cross. Activity is skewed towards low stock locates (the busiest real
 * tickers come first). With a finite count the body's timestamps spread over 09:30-16:00; endless sessions
 * advance about 10 microseconds per message.
 * <p>
 * Live orders sit in pre-allocated parallel arrays, a fixed block of slots per symbol (16 to 128 depending on the
 * symbol count; a full symbol turns an add into a delete), with swap-remove; {@link #next(ItchEvent)} allocates
 * nothing. Single-threaded.
 */
public final class SessionGenerator
{
    /** 04:00:00 in nanoseconds since midnight: start of system hours. */
    public static final long START_OF_SYSTEM_HOURS_NS = 4L * 3600 * 1_000_000_000L;
    /** 09:30:00: start of market hours. */
    public static final long START_OF_MARKET_HOURS_NS = 34_200L * 1_000_000_000L;
    /** 16:00:00: end of market hours. */
    public static final long END_OF_MARKET_HOURS_NS = 57_600L * 1_000_000_000L;
    /** 20:00:00: end of system hours. */
    public static final long END_OF_SYSTEM_HOURS_NS = 72_000L * 1_000_000_000L;

    /** Price(4) of one tick, $0.01. */
    public static final long TICK = 100;

    private static final long ENDLESS_AVERAGE_STEP_NS = 10_000;
    private static final long MIN_MID = 100 * TICK;
    private static final int MAX_LIVE_ORDERS = 1 << 20;
    private static final int MAX_ORDERS_PER_SYMBOL = 128;
    private static final int MIN_ORDERS_PER_SYMBOL = 16;
    private static final int RECENT_MATCHES = 256;

    private static final int PHASE_START_OF_MESSAGES = 0;
    private static final int PHASE_START_OF_SYSTEM_HOURS = 1;
    private static final int PHASE_MWCB_LEVELS = 2;
    private static final int PHASE_DIRECTORY = 3;
    private static final int PHASE_REG_SHO = 4;
    private static final int PHASE_PARTICIPANTS = 5;
    private static final int PHASE_TRADING = 6;
    private static final int PHASE_START_OF_MARKET_HOURS = 7;
    private static final int PHASE_BODY = 8;
    private static final int PHASE_END_OF_MARKET_HOURS = 9;
    private static final int PHASE_CLOSING_CROSS = 10;
    private static final int PHASE_END_OF_SYSTEM_HOURS = 11;
    private static final int PHASE_END_OF_MESSAGES = 12;
    private static final int PHASE_DONE = 13;

    private static final byte[] MPIDS = "GSCOMSCOUBSSCDRGNITEJPMSVIRTSUSQ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final int MPID_COUNT = MPIDS.length / 4;
    private static final byte[] HALT_REASON = "T1  ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] PAUSE_REASON = "LUDP".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] NO_REASON = "    ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] ISSUE_SUB_TYPE = "Z ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final byte[] PRICE_VARIATIONS = "L123456789ABC ".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final int symbols;
    private final long messageCount;
    private final long bodyEnd;
    private final long averageStepNs;
    private final char[] bodyTypes = SessionConfig.BODY_TYPES.clone();
    private final int[] cumulativeWeights;
    private final int totalWeight;

    private final byte[] stocks;
    private final long[] mid;

    /** Live orders: symbol {@code locate} owns slots [(locate - 1) * ordersPerSymbol, + orderCount[locate]). */
    private final int ordersPerSymbol;
    private final int[] orderCount;
    private final long[] orderRef;
    private final char[] orderSide;
    private final long[] orderShares;
    private final long[] orderPrice;
    private int liveOrders;

    private final long[] recentMatches = new long[RECENT_MATCHES];
    private final int[] recentMatchLocates = new int[RECENT_MATCHES];
    private int recentMatchCount;

    private long rngState;
    private long emitted;
    private long timestamp;
    private long nextOrderRef = 1;
    private long nextMatch = 1;
    private int phase = PHASE_START_OF_MESSAGES;
    private int cursor;
    private int haltedLocate;
    private int operationallyHaltedLocate;

    /**
     * Creates a generator; the same seed and configuration always give the same session.
     *
     * @param seed   the random seed.
     * @param config the configuration, validated here.
     * @throws IllegalArgumentException when the configuration is not usable.
     */
    public SessionGenerator(final long seed, final SessionConfig config)
    {
        config.validate();
        symbols = config.symbols();
        messageCount = config.messageCount();
        rngState = seed;

        final int[] weights = config.weights();
        cumulativeWeights = new int[weights.length];
        int sum = 0;
        for (int i = 0; i < weights.length; i++)
        {
            sum += weights[i];
            cumulativeWeights[i] = sum;
        }
        totalWeight = sum;

        if (messageCount > 0)
        {
            bodyEnd = messageCount - closingLength(symbols);
            final long bodyMessages = Math.max(1, bodyEnd - openingLength(symbols));
            averageStepNs = Math.max(1, (END_OF_MARKET_HOURS_NS - START_OF_MARKET_HOURS_NS) / bodyMessages);
        }
        else
        {
            bodyEnd = Long.MAX_VALUE;
            averageStepNs = ENDLESS_AVERAGE_STEP_NS;
        }

        stocks = new byte[symbols * ItchEvent.STOCK_LENGTH];
        mid = new long[symbols + 1];
        for (int i = 0; i < symbols; i++)
        {
            Tickers.symbol(i, stocks, i * ItchEvent.STOCK_LENGTH);
            mid[i + 1] = (1_000 + nextInt(49_000)) * TICK;
        }

        ordersPerSymbol = Math.max(MIN_ORDERS_PER_SYMBOL, Math.min(MAX_ORDERS_PER_SYMBOL, MAX_LIVE_ORDERS / symbols));
        final int slots = symbols * ordersPerSymbol;
        orderCount = new int[symbols + 1];
        orderRef = new long[slots];
        orderSide = new char[slots];
        orderShares = new long[slots];
        orderPrice = new long[slots];

        timestamp = START_OF_SYSTEM_HOURS_NS + nextInt(1_000_000);
    }

    /**
     * Number of messages of the opening sequence for this many symbols.
     *
     * @param symbols number of symbols.
     * @return S O, S S, V, R per symbol, Y per 8th, L per 4th, H per symbol and S Q.
     */
    static long openingLength(final int symbols)
    {
        return 3L + symbols + regShoCount(symbols) + participantCount(symbols) + symbols + 1L;
    }

    /**
     * Number of messages of the closing sequence for this many symbols.
     *
     * @param symbols number of symbols.
     * @return S M, a closing cross per symbol, S E and S C.
     */
    static long closingLength(final int symbols)
    {
        return 3L + symbols;
    }

    private static long regShoCount(final int symbols)
    {
        return (symbols + 7) / 8;
    }

    private static long participantCount(final int symbols)
    {
        return (symbols + 2) / 4;
    }

    /**
     * Number of messages produced so far.
     *
     * @return the count; the last message produced has this sequence number.
     */
    public long emitted()
    {
        return emitted;
    }

    /**
     * Number of live (resting) orders right now.
     *
     * @return the count.
     */
    public int liveOrders()
    {
        return liveOrders;
    }

    /**
     * Fills the next message of the session.
     *
     * @param event the struct to fill.
     * @return false (and the event untouched) once the session has ended.
     */
    public boolean next(final ItchEvent event)
    {
        if (PHASE_DONE == phase)
        {
            return false;
        }
        if (PHASE_BODY == phase && emitted >= bodyEnd)
        {
            phase = PHASE_END_OF_MARKET_HOURS;
        }

        event.trackingNumber = (int)(emitted & 0x7) + 1;
        switch (phase)
        {
            case PHASE_START_OF_MESSAGES:
                systemEvent(event, 'O', 0);
                phase = PHASE_START_OF_SYSTEM_HOURS;
                break;

            case PHASE_START_OF_SYSTEM_HOURS:
                systemEvent(event, 'S', 0);
                phase = PHASE_MWCB_LEVELS;
                break;

            case PHASE_MWCB_LEVELS:
                mwcbLevels(event);
                phase = PHASE_DIRECTORY;
                cursor = 1;
                break;

            case PHASE_DIRECTORY:
                stockDirectory(event, cursor);
                if (++cursor > symbols)
                {
                    phase = PHASE_REG_SHO;
                    cursor = 1;
                }
                break;

            case PHASE_REG_SHO:
                regSho(event, cursor, '0');
                cursor += 8;
                if (cursor > symbols)
                {
                    phase = PHASE_PARTICIPANTS;
                    cursor = 2;
                    if (cursor > symbols)
                    {
                        phase = PHASE_TRADING;
                        cursor = 1;
                    }
                }
                break;

            case PHASE_PARTICIPANTS:
                participant(event, cursor);
                cursor += 4;
                if (cursor > symbols)
                {
                    phase = PHASE_TRADING;
                    cursor = 1;
                }
                break;

            case PHASE_TRADING:
                tradingAction(event, cursor, 'T', NO_REASON);
                if (++cursor > symbols)
                {
                    phase = PHASE_START_OF_MARKET_HOURS;
                }
                break;

            case PHASE_START_OF_MARKET_HOURS:
                systemEvent(event, 'Q', START_OF_MARKET_HOURS_NS);
                phase = PHASE_BODY;
                break;

            case PHASE_BODY:
                body(event);
                break;

            case PHASE_END_OF_MARKET_HOURS:
                systemEvent(event, 'M', END_OF_MARKET_HOURS_NS);
                phase = PHASE_CLOSING_CROSS;
                cursor = 1;
                break;

            case PHASE_CLOSING_CROSS:
                cross(event, cursor, 'C');
                if (++cursor > symbols)
                {
                    phase = PHASE_END_OF_SYSTEM_HOURS;
                }
                break;

            case PHASE_END_OF_SYSTEM_HOURS:
                systemEvent(event, 'E', END_OF_SYSTEM_HOURS_NS);
                phase = PHASE_END_OF_MESSAGES;
                break;

            default:
                systemEvent(event, 'C', END_OF_SYSTEM_HOURS_NS + 300_000_000_000L);
                phase = PHASE_DONE;
                break;
        }

        emitted++;
        return true;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Opening and closing sequences
    // ------------------------------------------------------------------------------------------------------------

    private void systemEvent(final ItchEvent event, final char code, final long notBefore)
    {
        header(event, 'S', 0, notBefore);
        event.eventCode = code;
    }

    private void mwcbLevels(final ItchEvent event)
    {
        header(event, 'V', 0, 0);
        // Price(8): 7%, 13% and 20% below a reference S&P 500 close of 5000.00.
        event.level1Price = 465_000_000_000L;
        event.level2Price = 435_000_000_000L;
        event.level3Price = 400_000_000_000L;
    }

    private void stockDirectory(final ItchEvent event, final int locate)
    {
        header(event, 'R', locate, 0);
        copyStock(event, locate);
        final boolean etp = Tickers.isEtp(locate - 1);
        event.marketCategory = etp ? 'G' : 'Q';
        event.financialStatusIndicator = 'N';
        event.roundLotSize = 100;
        event.roundLotsOnly = 'N';
        event.issueClassification = etp ? 'Q' : 'C';
        System.arraycopy(ISSUE_SUB_TYPE, 0, event.issueSubType, 0, 2);
        event.authenticity = 'P';
        event.shortSaleThresholdIndicator = 'N';
        event.ipoFlag = 'N';
        event.luldReferencePriceTier = locate <= 100 ? '1' : '2';
        event.etpFlag = etp ? 'Y' : 'N';
        event.etpLeverageFactor = etp ? 1 : 0;
        event.inverseIndicator = 'N';
    }

    private void regSho(final ItchEvent event, final int locate, final char action)
    {
        header(event, 'Y', locate, 0);
        copyStock(event, locate);
        event.regShoAction = action;
    }

    private void participant(final ItchEvent event, final int locate)
    {
        header(event, 'L', locate, 0);
        copyStock(event, locate);
        System.arraycopy(MPIDS, nextInt(MPID_COUNT) * 4, event.mpid, 0, 4);
        event.primaryMarketMaker = nextInt(4) == 0 ? 'Y' : 'N';
        event.marketMakerMode = 'N';
        event.marketParticipantState = 'A';
    }

    private void tradingAction(final ItchEvent event, final int locate, final char state, final byte[] reason)
    {
        header(event, 'H', locate, 0);
        copyStock(event, locate);
        event.tradingState = state;
        event.reserved = ' ';
        System.arraycopy(reason, 0, event.reason, 0, 4);
    }

    private void cross(final ItchEvent event, final int locate, final char crossType)
    {
        header(event, 'Q', locate, 0);
        copyStock(event, locate);
        event.longShares = 1_000 + nextInt(1_000_000);
        event.price = mid[locate];
        event.matchNumber = newMatch(event.stockLocate);
        event.crossType = crossType;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Main body
    // ------------------------------------------------------------------------------------------------------------

    private void body(final ItchEvent event)
    {
        final int draw = nextInt(totalWeight);
        int i = 0;
        while (draw >= cumulativeWeights[i])
        {
            i++;
        }

        switch (bodyTypes[i])
        {
            case 'A': add(event, 'A'); break;
            case 'F': add(event, 'F'); break;
            case 'D': delete(event); break;
            case 'U': replace(event); break;
            case 'E': execute(event, 'E'); break;
            case 'C': execute(event, 'C'); break;
            case 'X': cancel(event); break;
            case 'I': imbalance(event); break;
            case 'P': trade(event); break;
            case 'N': retailInterest(event); break;
            case 'Q': cross(event, pickTradingSymbol(), nextInt(2) == 0 ? 'H' : 'I'); break;
            case 'H': haltOrResume(event); break;
            case 'B': breakTrade(event); break;
            case 'Y': regSho(event, pickSymbol(), nextInt(2) == 0 ? '1' : '2'); break;
            case 'L': participant(event, pickSymbol()); break;
            case 'h': operationalHalt(event); break;
            case 'K': ipoQuotingPeriod(event); break;
            case 'J': auctionCollar(event); break;
            case 'O': directListing(event); break;
            default: mwcbStatus(event); break;
        }
    }

    private void add(final ItchEvent event, final char type)
    {
        final int locate = pickTradingSymbol();
        if (orderCount[locate] >= ordersPerSymbol)
        {
            final int slot = randomSlot(locate);
            orderEvent(event, 'D', slot);
            removeOrder(slot);
            return;
        }
        if (walkOrClear(event, locate))
        {
            return;
        }

        final char side = nextInt(2) == 0 ? 'B' : 'S';
        final long ref = nextOrderRef++;
        final long shares = randomShares();
        final long price = restingPrice(locate, side);

        header(event, type, locate, 0);
        event.orderReferenceNumber = ref;
        event.side = side;
        event.shares = shares;
        copyStock(event, locate);
        event.price = price;
        if ('F' == type)
        {
            System.arraycopy(MPIDS, nextInt(MPID_COUNT) * 4, event.attribution, 0, 4);
        }

        final int slot = slotBase(locate) + orderCount[locate]++;
        liveOrders++;
        orderRef[slot] = ref;
        orderSide[slot] = side;
        orderShares[slot] = shares;
        orderPrice[slot] = price;
    }

    private void delete(final ItchEvent event)
    {
        final int slot = randomLiveSlot();
        if (slot < 0)
        {
            add(event, 'A');
            return;
        }

        orderEvent(event, 'D', slot);
        removeOrder(slot);
    }

    private void cancel(final ItchEvent event)
    {
        final int slot = randomLiveSlot();
        if (slot < 0)
        {
            add(event, 'A');
            return;
        }

        final long remaining = orderShares[slot];
        if (remaining <= 1)
        {
            orderEvent(event, 'D', slot);
            removeOrder(slot);
            return;
        }

        orderEvent(event, 'X', slot);
        final long cancelled = 1 + nextLong(remaining - 1);
        event.shares = cancelled;
        orderShares[slot] = remaining - cancelled;
    }

    private void execute(final ItchEvent event, final char type)
    {
        final int slot = randomLiveSlot();
        if (slot < 0)
        {
            add(event, 'A');
            return;
        }

        if (isHalted(locateOf(slot)))
        {
            // No executions while halted; a cancel during a halt is what really happens.
            orderEvent(event, 'D', slot);
            removeOrder(slot);
            return;
        }

        final long remaining = orderShares[slot];
        executeSlot(event, type, slot, nextInt(2) == 0 ? remaining : 1 + nextLong(remaining));
    }

    private void executeSlot(final ItchEvent event, final char type, final int slot, final long executed)
    {
        final long remaining = orderShares[slot];
        orderEvent(event, type, slot);
        event.shares = executed;
        event.matchNumber = newMatch(event.stockLocate);
        if ('C' == type)
        {
            event.printable = nextInt(8) == 0 ? 'N' : 'Y';
            event.price = Math.max(TICK, orderPrice[slot] + (nextInt(3) - 1) * TICK);
        }
        else
        {
            event.price = orderPrice[slot];
        }

        if (executed == remaining)
        {
            removeOrder(slot);
        }
        else
        {
            orderShares[slot] = remaining - executed;
        }
    }

    private void replace(final ItchEvent event)
    {
        final int slot = randomLiveSlot();
        if (slot < 0)
        {
            add(event, 'A');
            return;
        }

        final int locate = locateOf(slot);
        orderEvent(event, 'U', slot);
        final long newRef = nextOrderRef++;
        final long shares = randomShares();
        final long price = restingPrice(locate, orderSide[slot]);
        event.newOrderReferenceNumber = newRef;
        event.shares = shares;
        event.price = price;

        orderRef[slot] = newRef;
        orderShares[slot] = shares;
        orderPrice[slot] = price;
    }

    private void trade(final ItchEvent event)
    {
        final int locate = pickTradingSymbol();
        header(event, 'P', locate, 0);
        // Non-displayed orders: NASDAQ sends a zero order reference number.
        event.orderReferenceNumber = 0;
        event.side = nextInt(2) == 0 ? 'B' : 'S';
        event.shares = randomShares();
        copyStock(event, locate);
        event.price = mid[locate] + (event.side == 'B' ? 0 : TICK);
        event.matchNumber = newMatch(event.stockLocate);
    }

    private void breakTrade(final ItchEvent event)
    {
        if (0 == recentMatchCount)
        {
            trade(event);
            return;
        }

        final int index = nextInt(recentMatchCount);
        final long match = recentMatches[index];
        final int locate = recentMatchLocates[index];
        recentMatchCount--;
        recentMatches[index] = recentMatches[recentMatchCount];
        recentMatchLocates[index] = recentMatchLocates[recentMatchCount];
        header(event, 'B', locate, 0);
        event.matchNumber = match;
    }

    private void imbalance(final ItchEvent event)
    {
        final int locate = pickSymbol();
        final long price = mid[locate];
        header(event, 'I', locate, 0);
        event.pairedShares = nextInt(500_000);
        event.imbalanceShares = nextInt(100_000);
        event.imbalanceDirection = "BSNOP".charAt(nextInt(5));
        copyStock(event, locate);
        event.farPrice = price + (nextInt(11) - 5) * TICK;
        event.nearPrice = price + (nextInt(5) - 2) * TICK;
        event.currentReferencePrice = price;
        event.crossType = "OCHA".charAt(nextInt(4));
        event.priceVariationIndicator = (char)PRICE_VARIATIONS[nextInt(PRICE_VARIATIONS.length)];
    }

    private void retailInterest(final ItchEvent event)
    {
        final int locate = pickSymbol();
        header(event, 'N', locate, 0);
        copyStock(event, locate);
        event.interestFlag = "BSAN".charAt(nextInt(4));
    }

    private void haltOrResume(final ItchEvent event)
    {
        if (symbols < 3)
        {
            retailInterest(event);
        }
        else if (0 == haltedLocate)
        {
            final int locate = pickTradingSymbol();
            haltedLocate = locate;
            if (nextInt(2) == 0)
            {
                tradingAction(event, locate, 'P', PAUSE_REASON);
            }
            else
            {
                tradingAction(event, locate, 'H', HALT_REASON);
            }
        }
        else
        {
            final int locate = haltedLocate;
            haltedLocate = 0;
            tradingAction(event, locate, 'T', NO_REASON);
        }
    }

    private void operationalHalt(final ItchEvent event)
    {
        if (symbols < 3)
        {
            retailInterest(event);
            return;
        }

        final int locate;
        final char action;
        if (0 == operationallyHaltedLocate)
        {
            locate = pickTradingSymbol();
            operationallyHaltedLocate = locate;
            action = 'H';
        }
        else
        {
            locate = operationallyHaltedLocate;
            operationallyHaltedLocate = 0;
            action = 'T';
        }

        header(event, 'h', locate, 0);
        copyStock(event, locate);
        event.marketCode = "QBX".charAt(nextInt(3));
        event.operationalHaltAction = action;
    }

    private void ipoQuotingPeriod(final ItchEvent event)
    {
        final int locate = pickSymbol();
        header(event, 'K', locate, 0);
        copyStock(event, locate);
        event.ipoQuotationReleaseTime = timestamp / 1_000_000_000L + 300 + nextInt(1_500);
        event.ipoQuotationReleaseQualifier = nextInt(4) == 0 ? 'C' : 'A';
        event.ipoPrice = mid[locate];
    }

    private void auctionCollar(final ItchEvent event)
    {
        final int locate = pickSymbol();
        final long price = mid[locate];
        header(event, 'J', locate, 0);
        copyStock(event, locate);
        event.auctionCollarReferencePrice = price;
        event.upperAuctionCollarPrice = roundToTick(price + price / 20);
        event.lowerAuctionCollarPrice = roundToTick(price - price / 20);
        event.auctionCollarExtension = nextInt(4);
    }

    private void directListing(final ItchEvent event)
    {
        final int locate = pickSymbol();
        final long price = mid[locate];
        header(event, 'O', locate, 0);
        copyStock(event, locate);
        event.openEligibilityStatus = nextInt(2) == 0 ? 'Y' : 'N';
        event.minimumAllowablePrice = roundToTick(price - price / 5);
        event.maximumAllowablePrice = roundToTick(price + price / 5);
        event.nearExecutionPrice = price;
        event.nearExecutionTime = timestamp + 60_000_000_000L;
        event.lowerPriceRangeCollar = roundToTick(price - price / 10);
        event.upperPriceRangeCollar = roundToTick(price + price / 10);
    }

    private void mwcbStatus(final ItchEvent event)
    {
        header(event, 'W', 0, 0);
        event.breachedLevel = '1';
    }

    // ------------------------------------------------------------------------------------------------------------
    // Helpers
    // ------------------------------------------------------------------------------------------------------------

    private void header(final ItchEvent event, final char type, final int locate, final long notBefore)
    {
        final long step = 1 + nextLong(2 * averageStepNs - 1);
        timestamp = Math.max(timestamp + step, notBefore);
        event.type = type;
        event.stockLocate = locate;
        event.timestamp = timestamp;
    }

    private void orderEvent(final ItchEvent event, final char type, final int slot)
    {
        final int locate = locateOf(slot);
        header(event, type, locate, 0);
        event.orderReferenceNumber = orderRef[slot];
        event.side = orderSide[slot];
        event.shares = orderShares[slot];
        event.price = orderPrice[slot];
        copyStock(event, locate);
    }

    private int slotBase(final int locate)
    {
        return (locate - 1) * ordersPerSymbol;
    }

    private int locateOf(final int slot)
    {
        return slot / ordersPerSymbol + 1;
    }

    /** A random live order of the symbol (which must have one). */
    private int randomSlot(final int locate)
    {
        return slotBase(locate) + nextInt(orderCount[locate]);
    }

    /** A random live order of a symbol drawn like the adds are, or -1 if that symbol has none. */
    private int randomLiveSlot()
    {
        final int locate = pickSymbol();
        return 0 == orderCount[locate] ? -1 : randomSlot(locate);
    }

    /** Swap-remove: the symbol's last order moves into the freed slot. */
    private void removeOrder(final int slot)
    {
        final int locate = locateOf(slot);
        final int last = slotBase(locate) + --orderCount[locate];
        liveOrders--;
        orderRef[slot] = orderRef[last];
        orderSide[slot] = orderSide[last];
        orderShares[slot] = orderShares[last];
        orderPrice[slot] = orderPrice[last];
    }

    /** A new match number, remembered with its stock locate so that a later B can break it. */
    private long newMatch(final int locate)
    {
        final long match = nextMatch++;
        final int index = recentMatchCount < RECENT_MATCHES ? recentMatchCount++ : nextInt(RECENT_MATCHES);
        recentMatches[index] = match;
        recentMatchLocates[index] = locate;
        return match;
    }

    private void copyStock(final ItchEvent event, final int locate)
    {
        System.arraycopy(stocks, (locate - 1) * ItchEvent.STOCK_LENGTH, event.stock, 0, ItchEvent.STOCK_LENGTH);
    }

    /** Busy symbols first: the square of a uniform draw skews activity towards low stock locates. */
    private int pickSymbol()
    {
        final long u = nextInt(1 << 16);
        return 1 + (int)(((u * u) * symbols) >>> 32);
    }

    private int pickTradingSymbol()
    {
        int locate = pickSymbol();
        while (isHalted(locate))
        {
            locate = locate == symbols ? 1 : locate + 1;
        }
        return locate;
    }

    private boolean isHalted(final int locate)
    {
        return locate == haltedLocate || locate == operationallyHaltedLocate;
    }

    /**
     * Random-walks the symbol's mid price while keeping its book uncrossed: every bid rests at or below the mid and
     * every ask above it. The mid only moves once the level in its way is gone: a move up first executes the asks
     * at mid + 1 tick, a move down the bids at the mid, one per call, as aggressive orders sweeping the touch would.
     *
     * @return true if the event became such an execution (and the caller's add must not happen).
     */
    private boolean walkOrClear(final ItchEvent event, final int locate)
    {
        final int draw = nextInt(16);
        if (0 == draw)
        {
            final int blocking = findOrder(locate, 'S', mid[locate] + TICK);
            if (blocking >= 0)
            {
                executeSlot(event, 'E', blocking, orderShares[blocking]);
                return true;
            }
            mid[locate] += TICK;
        }
        else if (1 == draw && mid[locate] > MIN_MID)
        {
            final int blocking = findOrder(locate, 'B', mid[locate]);
            if (blocking >= 0)
            {
                executeSlot(event, 'E', blocking, orderShares[blocking]);
                return true;
            }
            mid[locate] -= TICK;
        }
        return false;
    }

    private int findOrder(final int locate, final char side, final long price)
    {
        final int base = slotBase(locate);
        for (int slot = base, end = base + orderCount[locate]; slot < end; slot++)
        {
            if (orderPrice[slot] == price && orderSide[slot] == side)
            {
                return slot;
            }
        }
        return -1;
    }

    /** Bids at or below the mid, asks above it, mostly near the touch so that levels aggregate. */
    private long restingPrice(final int locate, final char side)
    {
        final int depth = Math.min(nextInt(8), nextInt(8));
        return 'B' == side ? mid[locate] - depth * TICK : mid[locate] + (depth + 1) * TICK;
    }

    private long randomShares()
    {
        return nextInt(10) == 0 ? 1 + nextInt(99) : 100L * (1 + nextInt(10));
    }

    private static long roundToTick(final long price)
    {
        return Math.max(TICK, (price / TICK) * TICK);
    }

    /** SplitMix64: fast, allocation-free, and the same sequence on every JVM. */
    private long nextRandom()
    {
        rngState += 0x9E3779B97F4A7C15L;
        long z = rngState;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    private int nextInt(final int bound)
    {
        return (int)(((nextRandom() >>> 32) * bound) >>> 32);
    }

    private long nextLong(final long bound)
    {
        return (nextRandom() >>> 1) % bound;
    }
}
