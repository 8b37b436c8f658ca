package jql

import "time"

// parseTime reads an RFC 3339 date-time (§5.6): YYYY-MM-DDTHH:MM:SS, an
// optional fraction of one or more digits (digits past the ninth are
// dropped), and Z or a ±HH:MM offset. "T" and "Z" may be lower case, as
// RFC 3339 allows. Years run from 0000 to 9999; seconds from 00 to 59
// (a leap second has no instant); offsets from -23:59 to +23:59. The day
// must exist in its month. Anything else is not a time.
func parseTime(s string) (time.Time, bool) {
	if len(s) < 20 {
		return time.Time{}, false
	}
	num := func(i, n int) int {
		v := 0
		for _, c := range []byte(s[i : i+n]) {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, minute, sec := num(11, 2), num(14, 2), num(17, 2)
	if year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 ||
		s[4] != '-' || s[7] != '-' || s[13] != ':' || s[16] != ':' || (s[10] != 'T' && s[10] != 't') {
		return time.Time{}, false
	}
	if day > daysIn(year, month) {
		return time.Time{}, false
	}
	i, nsec := 19, 0
	if s[i] == '.' {
		i++
		digits := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if digits < 9 {
				nsec = nsec*10 + int(s[i]-'0')
			}
			digits++
			i++
		}
		if digits == 0 {
			return time.Time{}, false
		}
		for d := digits; d < 9; d++ {
			nsec *= 10
		}
	}
	rest := s[i:]
	off := 0
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, om := num(i+1, 2), num(i+4, 2)
		if oh < 0 || oh > 23 || om < 0 || om > 59 {
			return time.Time{}, false
		}
		off = oh*3600 + om*60
		if rest[0] == '-' {
			off = -off
		}
	default:
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	return t.Add(-time.Duration(off) * time.Second), true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// durationMs is b - a in milliseconds, truncated toward zero, without the
// overflow of time.Duration (which spans only about 292 years).
func durationMs(a, b time.Time) int64 {
	sec := b.Unix() - a.Unix()
	ns := int64(b.Nanosecond() - a.Nanosecond())
	if sec > 0 && ns < 0 {
		sec--
		ns += 1e9
	} else if sec < 0 && ns > 0 {
		sec++
		ns -= 1e9
	}
	return sec*1000 + ns/1e6
}
