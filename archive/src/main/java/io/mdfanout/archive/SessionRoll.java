package io.mdfanout.archive;

import java.time.DayOfWeek;
import java.time.LocalDate;
import java.time.format.DateTimeParseException;
import java.util.List;

/**
 * The name of the session that follows one the exchange ended (its End of Messages seen on every partition). A
 * session named by its trading date is followed by the next weekday's (Friday by Monday; exchange holidays are
 * not known here, so a session after one is named by the holiday's date: name it with {@code --session} instead);
 * any other name gets a counter ({@code test} by {@code test-2}, {@code test-2} by {@code test-3}). A name the
 * archive already holds is continued, as a restart with that name would: an archive restarted in the evening
 * under the ended day's name rolls again into the session it had rolled into before.
 */
final class SessionRoll
{
    private SessionRoll()
    {
    }

    /**
     * The session an archive started without {@code --session} records: today's trading date, unless the archive
     * already holds a later date-named session (it rolled into it before a restart), which it continues.
     *
     * @param today    today's date in the exchange's zone.
     * @param recorded the sessions with recordings in the catalog.
     * @return the session to record.
     */
    static String current(final String today, final List<String> recorded)
    {
        String newest = today;
        for (final String session : recorded)
        {
            if (isDate(session) && session.compareTo(newest) > 0)
            {
                newest = session;
            }
        }
        return newest;
    }

    private static boolean isDate(final String name)
    {
        try
        {
            LocalDate.parse(name);
            return true;
        }
        catch (final DateTimeParseException notADate)
        {
            return false;
        }
    }

    /**
     * @param name the session that ended.
     * @return the next session's name.
     */
    static String next(final String name)
    {
        try
        {
            LocalDate date = LocalDate.parse(name).plusDays(1);
            while (DayOfWeek.SATURDAY == date.getDayOfWeek() || DayOfWeek.SUNDAY == date.getDayOfWeek())
            {
                date = date.plusDays(1);
            }
            return date.toString();
        }
        catch (final DateTimeParseException notADate)
        {
            final int dash = name.lastIndexOf('-');
            if (dash > 0 && dash < name.length() - 1 && name.substring(dash + 1).chars().allMatch(Character::isDigit) &&
                name.length() - dash - 1 < 9)
            {
                return name.substring(0, dash + 1) + (Integer.parseInt(name.substring(dash + 1)) + 1);
            }
            return name + "-2";
        }
    }
}
