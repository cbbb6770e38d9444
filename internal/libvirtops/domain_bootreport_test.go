package libvirtops

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/digitalocean/go-libvirt"
	"libvirt.org/go/libvirtxml"
)

func TestLastLines(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		n    int
		want []string
	}{
		{"blank lines and CRLF dropped", "a\r\n\r\n  \nb\r\n", 5, []string{"a", "b"}},
		{"last n kept", "1\n2\n3\n4\n", 2, []string{"3", "4"}},
		{"colours and cursor moves removed", "\x1b[0;32m  OK  \x1b[0m Started\n\x1b[?25lx\n", 5, []string{"  OK   Started", "x"}},
		{"carriage return overwrites the line", "progress 10%\rprogress 100%\n", 5, []string{"progress 100%"}},
		{"other control characters removed", "a\x07b\x00c\n", 5, []string{"abc"}},
		{"nothing printed", "", 5, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lastLines([]byte(tc.in), tc.n); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("lastLines(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
			}
		})
	}
}

func TestFileTailReadsOnlyTheEnd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "console.log")
	var b strings.Builder
	b.WriteString("FIRST LINE\n")
	for b.Len() < 2*consoleTailBytes {
		b.WriteString("filler line of a long boot\n")
	}
	b.WriteString("Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	lines, err := fileTail(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != consoleTailLines || !strings.HasPrefix(lines[len(lines)-1], "Kernel panic") {
		t.Errorf("got %d lines ending in %q, want %d ending in the panic", len(lines), lines[len(lines)-1], consoleTailLines)
	}
	if _, err := fileTail(filepath.Join(t.TempDir(), "missing.log")); err == nil {
		t.Error("a missing log file gave no error")
	}
}

func TestConsoleFile(t *testing.T) {
	logged := &libvirtxml.Domain{Devices: &libvirtxml.DomainDeviceList{Serials: []libvirtxml.DomainSerial{{
		Source: &libvirtxml.DomainChardevSource{Pty: &libvirtxml.DomainChardevSourcePty{}},
		Log:    &libvirtxml.DomainChardevLog{File: "/var/log/libvirt/qemu/vm-serial.log"},
	}}}}
	fileBacked := &libvirtxml.Domain{Devices: &libvirtxml.DomainDeviceList{Serials: []libvirtxml.DomainSerial{{
		Source: &libvirtxml.DomainChardevSource{File: &libvirtxml.DomainChardevSourceFile{Path: "/var/tmp/vm.log"}},
	}}}}
	consoleOnly := &libvirtxml.Domain{Devices: &libvirtxml.DomainDeviceList{Consoles: []libvirtxml.DomainConsole{{
		Source: &libvirtxml.DomainChardevSource{Pty: &libvirtxml.DomainChardevSourcePty{}},
	}}}}
	for _, tc := range []struct {
		name string
		dom  *libvirtxml.Domain
		file string
		pty  bool
	}{
		{"pty serial with log", logged, "/var/log/libvirt/qemu/vm-serial.log", true},
		{"file-backed serial", fileBacked, "/var/tmp/vm.log", false},
		{"pty console without log", consoleOnly, "", true},
		{"no devices", &libvirtxml.Domain{}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := consoleFile(tc.dom); got != tc.file {
				t.Errorf("consoleFile = %q, want %q", got, tc.file)
			}
			if got := hasPTYConsole(tc.dom); got != tc.pty {
				t.Errorf("hasPTYConsole = %v, want %v", got, tc.pty)
			}
		})
	}
}

func TestDomainStateWords(t *testing.T) {
	for _, tc := range []struct {
		state          libvirt.DomainState
		reason         int
		name, inReason string
	}{
		{libvirt.DomainRunning, 1, "running", "booted"},
		{libvirt.DomainShutoff, 3, "shut off", "crashed"},
		{libvirt.DomainCrashed, 1, "crashed", "panicked"},
		{libvirt.DomainPaused, 5, "paused", "I/O error"},
		{libvirt.DomainRunning, 99, "running", "reason 99"},
		{libvirt.DomainState(42), 0, "state 42", "reason 0"},
	} {
		name, reason := DomainStateWords(tc.state, tc.reason)
		if name != tc.name || reason != tc.inReason {
			t.Errorf("DomainStateWords(%d, %d) = %q, %q; want %q, %q", tc.state, tc.reason, name, reason, tc.name, tc.inReason)
		}
	}
}

func TestConsoleSourceTail(t *testing.T) {
	const panicLine = "Kernel panic - not syncing: VFS: Unable to mount root fs"
	readOK := func(string) ([]string, error) { return []string{panicLine}, nil }
	readDenied := func(path string) ([]string, error) {
		return nil, &os.PathError{Op: "open", Path: path, Err: os.ErrPermission}
	}
	streamed := func() ([]byte, error) { return []byte("Begin: Running /scripts/local-block ... done.\r\n"), nil }
	noStream := func() ([]byte, error) { t.Error("streamed although the file was enough"); return nil, nil }
	for _, tc := range []struct {
		name       string
		src        consoleSource
		read       func(string) ([]string, error)
		stream     func() ([]byte, error)
		wantSource string
		wantLine   string
		wantErr    string
	}{
		{"local log file", consoleSource{file: "/l.log", local: true, pty: true}, readOK, noStream,
			"file /l.log", panicLine, ""},
		{"local file unreadable, pty streamed", consoleSource{file: "/l.log", local: true, pty: true, read: 3 * time.Second}, readDenied, streamed,
			"console stream (3s); the log file is not readable here: open /l.log: permission denied", "Begin: Running /scripts/local-block ... done.", ""},
		{"local file unreadable, no pty", consoleSource{file: "/l.log", local: true}, readDenied, noStream,
			"file /l.log", "", "permission denied"},
		{"remote log file, pty streamed", consoleSource{file: "/l.log", pty: true, host: "h1", read: time.Second}, readOK, streamed,
			"console stream (1s); the full log is /l.log on the libvirt host h1", "Begin: Running /scripts/local-block ... done.", ""},
		{"remote file-backed serial", consoleSource{file: "/l.log", host: "h1"}, readOK, noStream,
			"file /l.log", "", "the file is on the libvirt host h1; read it there"},
		{"no serial console", consoleSource{local: true}, readOK, noStream, "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.src.tail(tc.read, tc.stream)
			if got.Source != tc.wantSource {
				t.Errorf("source %q, want %q", got.Source, tc.wantSource)
			}
			if tc.wantLine != "" && (len(got.Lines) != 1 || got.Lines[0] != tc.wantLine) {
				t.Errorf("lines %q, want [%q]", got.Lines, tc.wantLine)
			}
			if tc.wantLine == "" && len(got.Lines) != 0 {
				t.Errorf("lines %q, want none", got.Lines)
			}
			if (got.Err == nil) != (tc.wantErr == "") || (got.Err != nil && !strings.Contains(got.Err.Error(), tc.wantErr)) {
				t.Errorf("error %v, want %q", got.Err, tc.wantErr)
			}
		})
	}
}
