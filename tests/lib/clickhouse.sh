# SPDX-License-Identifier: GPL-2.0-only
# A private ClickHouse server for a test, from a temporary configuration on
# loopback ports: no system service, nothing left behind.  Source it, then
#   ch_start DIR HTTP_PORT TCP_PORT [CONFIG [USERS]]
#                                     start one in DIR (a fresh directory), wait until it answers;
#                                     CONFIG is more of config.xml (remote_servers), USERS more users
#   ch_query HTTP_PORT SQL            run SQL, print the result (exit 1 on an error answer)
#   ch_stop DIR...                    stop them, all at once (TERM, then KILL after 30 s)
# ch_stop_all, as an EXIT trap, stops every server ch_start started (KILL
# after 3 s: their data goes with the test).
CH_DIRS=
ch_start() {
	d=$1 http=$2 tcp=$3 more_config=${4:-} more_users=${5:-}
	mkdir -p "$d/log" "$d/data/tmp" "$d/data/user_files" "$d/data/format_schemas"
	cat > "$d/config.xml" <<XML
<yandex><logger><level>warning</level><log>$d/log/server.log</log><errorlog>$d/log/server.err.log</errorlog></logger>
<listen_host>127.0.0.1</listen_host><http_port>$http</http_port><tcp_port>$tcp</tcp_port>
<path>$d/data/</path><tmp_path>$d/data/tmp/</tmp_path><user_files_path>$d/data/user_files/</user_files_path>
<format_schema_path>$d/data/format_schemas/</format_schema_path><users_config>users.xml</users_config>
<default_profile>default</default_profile><default_database>default</default_database><timezone>UTC</timezone>
<mark_cache_size>536870912</mark_cache_size>$more_config</yandex>
XML
	# poll_interval: a connection waiting for its next query (another
	# shard's, kept in its pool) sees a stopping server within 1 s, not 10
	cat > "$d/users.xml" <<XML
<yandex><profiles><default><max_memory_usage>4000000000</max_memory_usage><poll_interval>1</poll_interval></default><readonly><readonly>1</readonly></readonly></profiles>
<users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default>$more_users</users>
<quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas></yandex>
XML
	setsid clickhouse-server --config-file="$d/config.xml" < /dev/null > "$d/log/stdout.log" 2>&1 &
	echo $! > "$d/pid"
	CH_DIRS="$CH_DIRS $d"
	for _ in $(seq 200); do
		curl -sf "http://127.0.0.1:$http/ping" > /dev/null 2>&1 && return 0
		sleep 0.05
	done
	echo "clickhouse-server in $d did not answer:" >&2
	tail -n 20 "$d/log/server.err.log" "$d/log/stdout.log" >&2 2> /dev/null
	return 1
}

ch_query() {
	out=$(curl -sS --data-binary "$2" "http://127.0.0.1:$1/" 2>&1)
	rc=$?
	printf '%s\n' "$out"
	[ $rc -eq 0 ] && ! printf '%s' "$out" | grep -q '^Code: [0-9]*, e.displayText()'
}

ch_stop() {
	cs_tenths=${CH_STOP_TENTHS:-300}
	# a server takes a second or more to stop: TERM to every one first
	cs_pids=
	for cs_d; do
		cs_pid=$(cat "$cs_d/pid" 2> /dev/null) || continue
		# once gone, its pid may be another process's
		rm -f "$cs_d/pid"
		kill -TERM "$cs_pid" 2> /dev/null && cs_pids="$cs_pids $cs_pid"
	done
	for _ in $(seq "$cs_tenths"); do
		cs_left=
		for cs_pid in $cs_pids; do kill -0 "$cs_pid" 2> /dev/null && cs_left="$cs_left $cs_pid"; done
		[ -n "$cs_left" ] || return 0
		cs_pids=$cs_left
		sleep 0.1
	done
	# shellcheck disable=SC2086
	kill -KILL $cs_pids 2> /dev/null
}

ch_stop_all() {
	# a connection another shard keeps in its pool can hold a stopping
	# server up to 10 s, which nothing here needs to wait out
	# shellcheck disable=SC2086
	CH_STOP_TENTHS=30 ch_stop $CH_DIRS
}
