// The idle-streams benchmark's server (bench/streams.sh): the HTTP server
// alone, serving GET /events as a stream that carries only a heartbeat.
StreamBenchServer.run()
