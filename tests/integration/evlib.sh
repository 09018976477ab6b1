# evlib.sh - looking at how sbxd sleeps, from outside (tests t190-t199).
#
# sbxd is event-driven: it sleeps in poll(2) with no timeout, woken only
# by inotify, a signal or one timerfd armed for its earliest due work.
# These read that from /proc, without timing anything.

# sleeping PID: the process waits in poll(2) with an infinite timeout
# (x86_64: syscall 7, third argument -1).
sleeping() {
	local nr a1 a2 a3 rest
	read -r nr a1 a2 a3 rest <"/proc/$1/syscall" 2>/dev/null || return 1
	[ "$nr" = 7 ] && [ "$a3" = 0xffffffff ]
}

# can_see_sleep: this machine lets the tests read the syscall a process
# sleeps in, in the form sleeping() knows.
can_see_sleep() { [ "$(uname -m)" = x86_64 ] && [ -r "/proc/self/syscall" ]; }

# timer_value PID: the seconds left on sbxd's timerfd ("0 0" when
# disarmed: nothing is due); prints "none" when it has no timerfd.
timer_value() {
	local fd
	for fd in /proc/"$1"/fd/*; do
		if [ "$(readlink "$fd" 2>/dev/null)" = "anon_inode:[timerfd]" ]; then
			sed -n 's/^it_value: (\([0-9]*\), \([0-9]*\))/\1 \2/p' \
				"/proc/$1/fdinfo/${fd##*/}"
			return 0
		fi
	done
	echo none
}

disarmed() { [ "$(timer_value "$1")" = "0 0" ]; }
