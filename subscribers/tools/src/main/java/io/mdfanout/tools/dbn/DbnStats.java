package io.mdfanout.tools.dbn;

/**
 * Counts of the records a {@link DbnEncoder} wrote, for the export command's summary and for tests.
 */
public final class DbnStats
{
    private final long[] mboByAction = new long[128];
    private final long[] derivedByAction = new long[128];
    private DbnSchema schema = DbnSchema.MBO;
    private long mbo;
    private long status;
    private long definitions;
    private long imbalance;
    private long derived;

    /**
     * @return every record written.
     */
    public long records()
    {
        return mbo + status + definitions + imbalance + derived;
    }

    /**
     * @return records of a derived schema written (MBP, trades or OHLCV).
     */
    public long derivedRecords()
    {
        return derived;
    }

    /**
     * Records of a derived schema of one action.
     *
     * @param action the action character, e.g. {@code 'T'}; OHLCV records have none and count under 0.
     * @return how many were written.
     */
    public long derivedRecords(final char action)
    {
        return action < derivedByAction.length ? derivedByAction[action] : 0;
    }

    /**
     * @return MBO records written.
     */
    public long mboRecords()
    {
        return mbo;
    }

    /**
     * MBO records of one action.
     *
     * @param action the action character, e.g. {@code 'A'}.
     * @return how many were written.
     */
    public long mboRecords(final char action)
    {
        return action < mboByAction.length ? mboByAction[action] : 0;
    }

    /**
     * @return status records written.
     */
    public long statusRecords()
    {
        return status;
    }

    /**
     * @return instrument definition records written.
     */
    public long definitionRecords()
    {
        return definitions;
    }

    /**
     * @return imbalance records written.
     */
    public long imbalanceRecords()
    {
        return imbalance;
    }

    /** {@inheritDoc} */
    public String toString()
    {
        if (schema.isDerived())
        {
            final String records = "records=" + records() + " " + schema + "=" + derived;
            return 0 != schema.barSeconds() ? records : records + " (A=" + derivedByAction['A'] + " C=" +
                derivedByAction['C'] + " T=" + derivedByAction['T'] + " R=" + derivedByAction['R'] + ")";
        }
        return "records=" + records() + " mbo=" + mbo + " (A=" + mboByAction['A'] + " C=" + mboByAction['C'] +
            " F=" + mboByAction['F'] + " T=" + mboByAction['T'] + " R=" + mboByAction['R'] + ") status=" + status +
            " definitions=" + definitions + " imbalance=" + imbalance;
    }

    void schema(final DbnSchema schema)
    {
        this.schema = schema;
    }

    void derived(final byte action)
    {
        derived++;
        derivedByAction[action & 0x7F]++;
    }

    void mbo(final byte action)
    {
        mbo++;
        mboByAction[action & 0x7F]++;
    }

    void status()
    {
        status++;
    }

    void definition()
    {
        definitions++;
    }

    void imbalance()
    {
        imbalance++;
    }
}
