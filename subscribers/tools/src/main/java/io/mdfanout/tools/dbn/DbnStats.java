package io.mdfanout.tools.dbn;

/**
 * Counts of the records a {@link DbnEncoder} wrote, for the export command's summary and for tests.
 */
public final class DbnStats
{
    private final long[] mboByAction = new long[128];
    private long mbo;
    private long status;
    private long definitions;
    private long imbalance;

    /**
     * @return every record written.
     */
    public long records()
    {
        return mbo + status + definitions + imbalance;
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
        return "records=" + records() + " mbo=" + mbo + " (A=" + mboByAction['A'] + " C=" + mboByAction['C'] +
            " F=" + mboByAction['F'] + " T=" + mboByAction['T'] + " R=" + mboByAction['R'] + ") status=" + status +
            " definitions=" + definitions + " imbalance=" + imbalance;
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
