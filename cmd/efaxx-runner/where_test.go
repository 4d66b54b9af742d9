package main

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"efaxx/results/record"
)

func TestInContainer(t *testing.T) {
	tests := []struct {
		name, mountinfo string
		want            bool
	}{
		{"host", "27 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw\n22 27 0:21 / /proc rw - proc proc rw\n", false},
		// enroot under pyxis: pivot_root into the container's directory.
		{"enroot", "66 43 254:0 /tmp/enroot/h1/data/pyxis_12_efaxx / ro,nosuid,nodev,relatime - ext4 /dev/vda rw\n" +
			"67 66 0:21 / /proc rw,nosuid - proc proc rw\n", true},
		{"docker", "512 480 0:52 / / rw,relatime master:1 - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w\n", true},
		{"btrfs subvolume", "27 1 0:25 /@ / rw,relatime shared:1 - btrfs /dev/sda2 rw,subvol=/@\n", false},
		// A later mount over / hides the first.
		{"remounted", "27 1 254:0 / / rw - ext4 /dev/vda rw\n90 27 254:0 /srv/root / rw - ext4 /dev/vda rw\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mountinfo")
			if err := os.WriteFile(path, []byte(tt.mountinfo), 0o644); err != nil {
				t.Fatal(err)
			}
			if got := inContainer(path); got != tt.want {
				t.Errorf("inContainer(%q) = %v, want %v", tt.mountinfo, got, tt.want)
			}
		})
	}
	if inContainer(filepath.Join(t.TempDir(), "none")) {
		t.Error("inContainer of a missing file = true, want false")
	}
}

func TestOSName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "os-release")
	text := "NAME=\"Debian GNU/Linux\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nID=debian\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := osName(path), "Debian GNU/Linux 12 (bookworm)"; got != want {
		t.Errorf("osName = %q, want %q", got, want)
	}
	if got := osName(filepath.Join(t.TempDir(), "none")); got != "" {
		t.Errorf("osName of a missing file = %q, want \"\"", got)
	}
}

// TestWhereImage: the image and the values of the sweep's variables come
// from the variables efaxx sets in the container; without them, no image.
func TestWhereImage(t *testing.T) {
	env := map[string]string{record.EnvImage: "/images/efaxx.sqsh", record.EnvImageDigest: "sha256:ab",
		record.EnvImageEnv: "GREETING,PATH", "GREETING": "hello from inside", "PATH": "/opt/conda/bin"}
	var r record.Rank
	where(&r, func(k string) string { return env[k] })
	want := &record.Image{Ref: "/images/efaxx.sqsh", Digest: "sha256:ab",
		Env: map[string]string{"GREETING": "hello from inside", "PATH": "/opt/conda/bin"}}
	if !reflect.DeepEqual(r.Image, want) {
		t.Errorf("Image = %+v, want %+v", r.Image, want)
	}
	r = record.Rank{}
	where(&r, func(string) string { return "" })
	if r.Image != nil {
		t.Errorf("Image = %+v without EFAXX_IMAGE, want nil", r.Image)
	}
}
