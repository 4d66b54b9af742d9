package harness_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"efaxx/harness"
	"efaxx/lineerr"
)

func TestParseResources(t *testing.T) {
	s, err := harness.Parse("/sweeps/p5.toml", []byte(head+`
[params]
provider = "efa"

[slurm]
partition = "p5"
account = "infra"
qos = "high"
constraint = "[rack1|rack2]&nvlink"
time = "1:30:00"
gpus_per_node = 8
ntasks_per_node = 8
cpus_per_task = 12
exclusive = true
mpi = "pmi2"
nodes = [2, 4]
extra = ["--reservation=acceptance", "--mem=0"]

[container]
image = "./images/efaxx.sqsh"
mounts = ["/fsx:/fsx", "/scratch:/scratch:ro+rprivate"]
workdir = "/fsx/work"
env = { FI_EFA_USE_DEVICE_RDMA = "1", NCCL_DEBUG = "INFO" }
`))
	if err != nil {
		t.Fatal(err)
	}
	want := harness.Resources{Partition: "p5", Account: "infra", QOS: "high", Constraint: "[rack1|rack2]&nvlink",
		Time: "1:30:00", TimeLimit: 90 * time.Minute, NTasksPerNode: 8, GPUsPerNode: 8, CPUsPerTask: 12, Exclusive: true, MPI: "pmi2",
		Extra: []string{"--reservation=acceptance", "--mem=0"},
		Container: &harness.Container{Image: filepath.FromSlash("/sweeps/images/efaxx.sqsh"),
			Mounts: []string{"/fsx:/fsx", "/scratch:/scratch:ro+rprivate"}, Workdir: "/fsx/work",
			Env: map[string]string{"FI_EFA_USE_DEVICE_RDMA": "1", "NCCL_DEBUG": "INFO"}}}
	if !reflect.DeepEqual(s.Resources, want) {
		t.Errorf("Resources =\n%+v\nwant\n%+v", s.Resources, want)
	}
	var shapes []string
	for _, p := range s.Points() {
		shapes = append(shapes, p.Label())
		if p.Ranks != 8*p.Nodes || (p.Nodes != 2 && p.Nodes != 4) {
			t.Errorf("point %d: %d ranks on %d nodes, want 8 per node on 2 or 4", p.Index, p.Ranks, p.Nodes)
		}
	}
	if !reflect.DeepEqual(shapes, []string{"write nodes=2", "write nodes=4"}) {
		t.Errorf("labels = %q", shapes)
	}
	if s.Points()[0].Hash == s.Points()[1].Hash {
		t.Error("points on 2 and 4 nodes have the same hash")
	}
}

// TestImagePaths: pyxis takes an image whose first character is '.' or
// '/' as a squashfs path, from the job's directory; efaxx reads such an
// image as a path too (IsImagePath) and makes it absolute from the sweep
// file's directory, so that efaxx and the job read the same file.
func TestImagePaths(t *testing.T) {
	for image, want := range map[string]string{
		"/fsx/efaxx.sqsh":        "/fsx/efaxx.sqsh",
		"./images/efaxx.sqsh":    "/sweeps/images/efaxx.sqsh",
		"../images/efaxx.sqsh":   "/images/efaxx.sqsh",
		".images/efaxx":          "/sweeps/.images/efaxx",
		".efaxx.sqsh":            "/sweeps/.efaxx.sqsh",
		"..efaxx":                "/sweeps/..efaxx",
		"nvcr.io#nvidia/efaxx:1": "nvcr.io#nvidia/efaxx:1",
		"efaxx.v2/runner:latest": "efaxx.v2/runner:latest",
	} {
		s, err := harness.Parse("/sweeps/p5.toml", []byte(head+"[container]\nimage = \""+image+"\"\n"))
		if err != nil {
			t.Errorf("image %q: %v", image, err)
			continue
		}
		got := s.Resources.Container.Image
		if got != filepath.FromSlash(want) {
			t.Errorf("image %q reads as %q, want %q", image, got, want)
		}
		if harness.IsImagePath(image) != filepath.IsAbs(got) || harness.IsImagePath(got) != harness.IsImagePath(image) {
			t.Errorf("image %q reads as %q: IsImagePath %v, then %v", image, got, harness.IsImagePath(image), harness.IsImagePath(got))
		}
	}
}

func TestResourcesDefaults(t *testing.T) {
	s := mustParse(t, head)
	if got, want := s.Resources, (harness.Resources{MPI: "pmix"}); !reflect.DeepEqual(got, want) {
		t.Errorf("Resources = %+v, want %+v", got, want)
	}
	if p := s.Points()[0]; p.Nodes != 1 || p.Ranks != 2 {
		t.Errorf("point = %+v, want 2 ranks on 1 node", p)
	}
}

// TestRanksPerNode: ntasks_per_node without ranks makes ranks follow nodes.
// TestUnlimitedTime: the words sbatch takes for no limit pass as written,
// with no limit for efaxx to wait on.
func TestUnlimitedTime(t *testing.T) {
	for _, word := range []string{"UNLIMITED", "infinite", "-1"} {
		s := mustParse(t, head+"[slurm]\ntime = \""+word+"\"\n")
		if got := s.Resources; got.Time != word || got.TimeLimit != 0 {
			t.Errorf("time = %q: Time %q, TimeLimit %v, want %q and 0", word, got.Time, got.TimeLimit, word)
		}
	}
}

func TestRanksPerNode(t *testing.T) {
	s := mustParse(t, head+"[slurm]\nnodes = [1, 2, 4]\nntasks_per_node = 8\n")
	var ranks []int
	for _, p := range s.Points() {
		ranks = append(ranks, p.Ranks)
	}
	if !reflect.DeepEqual(ranks, []int{8, 16, 32}) {
		t.Errorf("ranks = %v, want 8, 16, 32", ranks)
	}
	// The queue runs on one rank: one a node, on one node, is its count.
	s = mustParse(t, "name = \"x\"\nbenchmark = \"queue\"\n[slurm]\nntasks_per_node = 1\n")
	if p := s.Points(); len(p) != 1 || p[0].Ranks != 1 {
		t.Errorf("queue, ntasks_per_node = 1: points %+v, want one of 1 rank", p)
	}
}

func TestParseResourceErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"unknown slurm key", head + "[slurm]\npartiton = \"a\"\n",
			`sweeps/x.toml:4: slurm.partiton: unknown key (did you mean "partition"?)`},
		{"unknown container key", head + "[container]\nimage = \"/i.sqsh\"\nmount = []\n",
			`sweeps/x.toml:5: container.mount: unknown key (did you mean "mounts"?)`},
		{"newline in partition", head + "[slurm]\npartition = \"a\\nsrun rm -rf /\"\n",
			`sweeps/x.toml:4: slurm.partition: partition "a\nsrun rm -rf /": holds control character U+000A (a line break ends a script line)`},
		{"newline in env", head + "[container]\nimage = \"/i.sqsh\"\nenv.X = \"a\\n$(rm -rf /)\"\n",
			`sweeps/x.toml:5: container.env.X: X "a\n$(rm -rf /)": holds control character U+000A (a line break ends a script line)`},
		{"hetjob", head + "[slurm]\nconstraint = \"HetJob\"\n",
			`sweeps/x.toml:4: slurm.constraint: constraint "HetJob": sbatch reads "hetjob" on an #SBATCH line as a heterogeneous-job separator`},
		{"bad time", head + "[slurm]\ntime = \"1h\"\n",
			`sweeps/x.toml:4: slurm.time: time "1h": want M, M:S, H:M:S, D-H, D-H:M or D-H:M:S`},
		{"zero time", head + "[slurm]\ntime = \"0\"\n",
			`sweeps/x.toml:4: slurm.time: time "0": want a limit of more than 0, or UNLIMITED for none`},
		{"none time", head + "[slurm]\ntime = \"NONE\"\n",
			`sweeps/x.toml:4: slurm.time: time "NONE": want a limit of more than 0, or UNLIMITED for none`},
		{"time past an int32 of seconds", head + "[slurm]\ntime = \"153722868\"\n",
			`sweeps/x.toml:4: slurm.time: time "153722868": out of range: sbatch takes at most 24855 days; UNLIMITED for none`},
		{"bad mpi", head + "[slurm]\nmpi = \"pmx\"\n",
			`sweeps/x.toml:4: slurm.mpi: unknown mpi plugin "pmx" (did you mean "pmix"?); known: pmix, pmi2, none`},
		{"short extra", head + "[slurm]\nextra = [\"-p x\"]\n",
			`sweeps/x.toml:4: slurm.extra: item 1: sbatch option "-p x": want --name or --name=value`},
		{"extra sets partition", head + "[slurm]\nextra = [\"--partition=x\"]\n",
			`sweeps/x.toml:4: slurm.extra: item 1: sbatch option "--partition=x": use [slurm] partition`},
		{"extra sets output", head + "[slurm]\nextra = [\"--output=/tmp/x\"]\n",
			`sweeps/x.toml:4: slurm.extra: item 1: sbatch option "--output=/tmp/x": efaxx sets --output itself`},
		// sbatch reads an unambiguous prefix as the option (TestExtraAsSbatchReadsIt).
		{"extra abbreviates array", head + "[slurm]\nextra = [\"--arr=0-3\"]\n",
			`sweeps/x.toml:4: slurm.extra: item 1: sbatch option "--arr=0-3": sbatch reads --arr as --array, and efaxx sets --array itself`},
		{"extra abbreviates partition", head + "[slurm]\nextra = [\"--parti=x\"]\n",
			`sweeps/x.toml:4: slurm.extra: item 1: sbatch option "--parti=x": sbatch reads --parti as --partition, and use [slurm] partition`},
		{"extra aliases ntasks-per-node", head + "[slurm]\nextra = [\"--tasks-per-node=2\"]\n",
			`sweeps/x.toml:4: slurm.extra: item 1: sbatch option "--tasks-per-node=2": sbatch reads --tasks-per-node as --ntasks-per-node, and use [slurm] ntasks_per_node`},
		{"extra ambiguous", head + "[slurm]\nextra = [\"--ti=3\"]\n",
			`sweeps/x.toml:4: slurm.extra: item 1: sbatch option "--ti=3": --ti is ambiguous: sbatch could read it as --time, --time-min: not an sbatch option`},
		{"extra unknown", head + "[slurm]\nextra = [\"--wo=/tmp\"]\n",
			`sweeps/x.toml:4: slurm.extra: item 1: sbatch option "--wo=/tmp": --wo: not an sbatch option (Slurm 22.05's sbatch)`},
		// The job script's environment holds no sweep value, and efaxx
		// follows its jobs on the default cluster.
		{"extra exports", head + "[slurm]\nextra = [\"--export=ALL,SHELLOPTS=xtrace,PS4=$(touch /tmp/x)\"]\n",
			`sweeps/x.toml:4: slurm.extra: item 1: sbatch option "--export=ALL,SHELLOPTS=xtrace,PS4=$(touch /tmp/x)": ` + exportWhy("--export")},
		{"extra abbreviates export-file", head + "[slurm]\nextra = [\"--export-f=/tmp/env\"]\n",
			`sweeps/x.toml:4: slurm.extra: item 1: sbatch option "--export-f=/tmp/env": sbatch reads --export-f as --export-file, and ` + exportWhy("--export-file")},
		{"extra gets user env", head + "[slurm]\nextra = [\"--get-user-env=10L\"]\n",
			`sweeps/x.toml:4: slurm.extra: item 1: sbatch option "--get-user-env=10L": --get-user-env replaces the job script's environment with the user's login environment, and the job script must run in the one efaxx submits it with`},
		{"extra gets user env, bare", head + "[slurm]\nextra = [\"--get\"]\n",
			`sweeps/x.toml:4: slurm.extra: item 1: sbatch option "--get": sbatch reads --get as --get-user-env, and --get-user-env replaces the job script's environment with the user's login environment, and the job script must run in the one efaxx submits it with`},
		{"extra clusters", head + "[slurm]\nextra = [\"--clusters=c2\"]\n",
			`sweeps/x.toml:4: slurm.extra: item 1: sbatch option "--clusters=c2": ` + clustersWhy("--clusters")},
		{"extra cluster", head + "[slurm]\nextra = [\"--cluster=c2\"]\n",
			`sweeps/x.toml:4: slurm.extra: item 1: sbatch option "--cluster=c2": ` + clustersWhy("--cluster")},
		{"extra -M", head + "[slurm]\nextra = [\"-M c2\"]\n",
			`sweeps/x.toml:4: slurm.extra: item 1: sbatch option "-M c2": want --name or --name=value`},
		{"extra --export value", head + "[slurm]\nextra = [\"--export ALL\"]\n",
			`sweeps/x.toml:4: slurm.extra: item 1: sbatch option "--export ALL": want --name or --name=value`},
		{"nodes zero", head + "[slurm]\nnodes = 0\n",
			`sweeps/x.toml:4: slurm.nodes: 0 is out of range: want 1..65536`},
		// CUDA IPC does not cross nodes.
		{"ipc on two nodes", "name = \"x\"\nbenchmark = \"ipc\"\n[slurm]\nnodes = [1, 2]\n",
			`sweeps/x.toml:4: slurm.nodes: benchmark ipc runs on the GPUs of one node, got nodes = 2`},
		{"ipc-all2all on two nodes", "name = \"x\"\nbenchmark = [\"write\", \"ipc-all2all\"]\n[slurm]\nnodes = 2\n",
			`sweeps/x.toml:4: slurm.nodes: benchmark ipc-all2all runs on the GPUs of one node, got nodes = 2`},
		{"ranks over nodes", head + "[params]\nranks = [2, 3]\n[slurm]\nnodes = 2\n",
			`sweeps/x.toml:6: slurm.nodes: ranks = 3 do not spread evenly over nodes = 2`},
		{"ranks against ntasks_per_node", head + "[params]\nranks = 4\n[slurm]\nntasks_per_node = 1\n",
			`sweeps/x.toml:4: params.ranks: ranks = 4 over nodes = 1 is 4 per node, but ntasks_per_node = 1`},
		{"one rank", head + "[slurm]\nntasks_per_node = 1\n",
			`sweeps/x.toml:4: slurm.ntasks_per_node: nodes = 1 × ntasks_per_node = 1 is 1 ranks: benchmark write runs on 2..65536`},
		// The queue runs on one rank, ipc on a node's GPUs: ranks = nodes ×
		// ntasks_per_node is held to each benchmark's count, as ranks is.
		{"queue on two ranks", "name = \"x\"\nbenchmark = \"queue\"\n[slurm]\nntasks_per_node = 2\n",
			`sweeps/x.toml:4: slurm.ntasks_per_node: nodes = 1 × ntasks_per_node = 2 is 2 ranks: benchmark queue runs on 1`},
		{"ipc on 128 ranks", "name = \"x\"\nbenchmark = \"ipc\"\n[slurm]\nntasks_per_node = 128\n",
			`sweeps/x.toml:4: slurm.ntasks_per_node: nodes = 1 × ntasks_per_node = 128 is 128 ranks: benchmark ipc runs on 2..64`},
		// A nodes value once, with every ranks value that does not fit it.
		{"ranks over nodes, lists", head + "[params]\nranks = [8, 16, 32]\n[slurm]\nnodes = [1, 2, 3]\nntasks_per_node = 8\n",
			"sweeps/x.toml:6: slurm.nodes: ranks = 16 and 32 over nodes = 1 are 16 and 32 per node, but ntasks_per_node = 8\n" +
				"sweeps/x.toml:6: slurm.nodes: ranks = 8 and 32 over nodes = 2 are 4 and 16 per node, but ntasks_per_node = 8\n" +
				"sweeps/x.toml:6: slurm.nodes: ranks = 8, 16 and 32 do not spread evenly over nodes = 3"},
		{"nodes times ntasks_per_node, lists", head + "[slurm]\nnodes = [1, 2, 3]\nntasks_per_node = 40000\n",
			`sweeps/x.toml:5: slurm.ntasks_per_node: nodes = 2 and 3 × ntasks_per_node = 40000 are 80000 and 120000 ranks: benchmark write runs on 2..65536`},
		{"no image", head + "[container]\nworkdir = \"/w\"\n",
			`sweeps/x.toml:3: container.image: missing required key`},
		{"dockerd image", head + "[container]\nimage = \"dockerd://efaxx:1\"\n",
			`sweeps/x.toml:4: container.image: image "dockerd://efaxx:1": compute nodes have no Docker daemon to import from; import it on a build host (make sqush) and give the .sqsh path`},
		{"bare sqsh path", head + "[container]\nimage = \"images/e.sqsh\"\n",
			`sweeps/x.toml:4: container.image: image "images/e.sqsh": a squashfs path must start with / or ./ (write "./images/e.sqsh")`},
		{"shell in image ref", head + "[container]\nimage = \"x;$(touch y)\"\n",
			`sweeps/x.toml:4: container.image: image "x;$(touch y)": neither a squashfs path (/… or ./…) nor a registry reference [USER@][REGISTRY#]IMAGE[:TAG]`},
		{"relative mount", head + "[container]\nimage = \"/i\"\nmounts = [\"data:/data\"]\n",
			`sweeps/x.toml:5: container.mounts: item 1: mount "data:/data": SRC and DST must be absolute paths`},
		{"comma in mount", head + "[container]\nimage = \"/i\"\nmounts = [\"/a:/a,/b:/b\"]\n",
			`sweeps/x.toml:5: container.mounts: item 1: mount "/a:/a,/b:/b": a comma separates mounts`},
		{"bad env name", head + "[container]\nimage = \"/i\"\nenv = { \"A B\" = \"1\" }\n",
			`sweeps/x.toml:5: container.env."A B": "A B" is not a variable name: want letters, digits and '_', not starting with a digit`},
		{"relative workdir", head + "[container]\nimage = \"/i\"\nworkdir = \"w\"\n",
			`sweeps/x.toml:5: container.workdir: "w" is not an absolute path`},
		{"space in workdir", head + "[container]\nimage = \"/i\"\nworkdir = \"/my work\"\n",
			`sweeps/x.toml:5: container.workdir: workdir "/my work": holds " ", which pyxis and enroot cannot carry in a container path`},
		{"colon in workdir", head + "[container]\nimage = \"/i\"\nworkdir = \"/w:1\"\n",
			`sweeps/x.toml:5: container.workdir: workdir "/w:1": holds ":", which pyxis and enroot cannot carry in a container path`},
		{"space in mount", head + "[container]\nimage = \"/i\"\nmounts = [\"/my data:/data\"]\n",
			`sweeps/x.toml:5: container.mounts: item 1: mount "/my data:/data": holds whitespace, which enroot's mount table cannot carry in a path`},
		{"colon in mount", head + "[container]\nimage = \"/i\"\nmounts = [\"/data:v2:/data\"]\n",
			`sweeps/x.toml:5: container.mounts: item 1: mount "/data:v2:/data": a path holds ':', which pyxis reads as the separator of SRC:DST:FLAGS`},
		{"colon in mount with flags", head + "[container]\nimage = \"/i\"\nmounts = [\"/a:/b:c:ro\"]\n",
			`sweeps/x.toml:5: container.mounts: item 1: mount "/a:/b:c:ro": a path holds ':', which pyxis reads as the separator of SRC:DST:FLAGS`},
		// pyxis writes each mount into a bash function, echo "SRC DST FLAGS",
		// which enroot sources: $, backticks, '"' and '\' act there.
		{"command in mount", head + "[container]\nimage = \"/i\"\nmounts = [\"/tmp:/mnt/$(touch${IFS}/tmp/x)\"]\n",
			`sweeps/x.toml:5: container.mounts: item 1: mount "/tmp:/mnt/$(touch${IFS}/tmp/x)": DST holds "$", which pyxis and enroot read through a shell (pyxis writes each mount into a script that enroot sources)`},
		{"backtick in mount", head + "[container]\nimage = \"/i\"\nmounts = [\"/a`id`:/a\"]\n",
			"sweeps/x.toml:5: container.mounts: item 1: mount \"/a`id`:/a\": SRC holds \"`\", which pyxis and enroot read through a shell (pyxis writes each mount into a script that enroot sources)"},
		{"quote in mount", head + "[container]\nimage = \"/i\"\nmounts = ['/a\"b:/a']\n",
			`sweeps/x.toml:5: container.mounts: item 1: mount "/a\"b:/a": SRC holds "\"", which pyxis and enroot read through a shell (pyxis writes each mount into a script that enroot sources)`},
		{"backslash in mount", head + "[container]\nimage = \"/i\"\nmounts = ['/a:/a\\b:ro']\n",
			`sweeps/x.toml:5: container.mounts: item 1: mount "/a:/a\\b:ro": DST holds "\\", which pyxis and enroot read through a shell (pyxis writes each mount into a script that enroot sources)`},
		{"variable in workdir", head + "[container]\nimage = \"/i\"\nworkdir = \"/w/$HOME\"\n",
			`sweeps/x.toml:5: container.workdir: workdir "/w/$HOME": holds "$", which pyxis and enroot cannot carry in a container path (they read mounts through a shell)`},
		{"slurm variable", head + "[container]\nimage = \"/i\"\nenv = { SLURM_NTASKS = \"4\" }\n",
			`sweeps/x.toml:5: container.env.SLURM_NTASKS: SLURM_NTASKS is efaxx's to set: srun sets SLURM_ variables for each rank; the runner reads its rank from them`},
		{"efaxx variable", head + "[container]\nimage = \"/i\"\n[container.env]\nGREETING = \"hi\"\nEFAXX_IMAGE = \"/other.sqsh\"\n",
			`sweeps/x.toml:7: container.env.EFAXX_IMAGE: EFAXX_IMAGE is efaxx's to set: efaxx sets EFAXX_ variables for the runner itself`},
		{"pmix variable", head + "[container]\nimage = \"/i\"\nenv = { PMIX_RANK = \"0\" }\n",
			`sweeps/x.toml:5: container.env.PMIX_RANK: PMIX_RANK is efaxx's to set: srun --mpi=pmix sets PMIX_ variables for each rank's bootstrap`},
		{"newline in nics", head + "[params]\nnics = \"nic0\\nrm -rf /\"\n",
			`sweeps/x.toml:4: params.nics: value "nic0\nrm -rf /": holds control character U+000A (a line break ends a script line)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := harness.Parse("sweeps/x.toml", []byte(tt.text))
			if got := errText(err); got != tt.want {
				t.Errorf("Parse(%q) error:\n%s\nwant:\n%s", tt.text, got, tt.want)
			}
		})
	}
}

// exportWhy is why an extra may not set opt, an option that sets the job
// script's environment.
func exportWhy(opt string) string {
	return opt + " sets variables in the job script's environment, which holds no sweep value " +
		"(BASH_ENV, SHELLOPTS with PS4, or PATH would run commands as the script's bash starts); set the ranks' variables in [container] env or [external] env"
}

// clustersWhy is why an extra may not set opt, --clusters or --cluster.
func clustersWhy(opt string) string {
	return opt + " submits to another cluster, and efaxx follows its jobs (squeue, sacct, scancel, scontrol) " +
		"on the default cluster only"
}

// TestCheckContainerPath: efaxx's --workdir holds the session directory,
// which every container mounts, so it is held to what a mount may hold.
func TestCheckContainerPath(t *testing.T) {
	for path, want := range map[string]string{
		"/fsx/work":    "",
		"/fsx/my work": `workdir "/fsx/my work": holds " ", which pyxis and enroot cannot carry in a container path`,
		"/fsx/$(id)":   `workdir "/fsx/$(id)": holds "$", which pyxis and enroot cannot carry in a container path (they read mounts through a shell)`,
		"/fsx/`id`":    "workdir \"/fsx/`id`\": holds \"`\", which pyxis and enroot cannot carry in a container path (they read mounts through a shell)",
		`/fsx/a"b`:     `workdir "/fsx/a\"b": holds "\"", which pyxis and enroot cannot carry in a container path (they read mounts through a shell)`,
		`/fsx/a\b`:     `workdir "/fsx/a\\b": holds "\\", which pyxis and enroot cannot carry in a container path (they read mounts through a shell)`,
	} {
		got := ""
		if err := harness.CheckContainerPath("workdir", path); err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("CheckContainerPath(%q) = %q, want %q", path, got, want)
		}
	}
}

// TestShapeErrorsBounded checks that lists of ranks and nodes that do not
// fit report a few lines, not one per pair, and that a sweep past
// max_points reports only that.
func TestShapeErrorsBounded(t *testing.T) {
	var ranks, nodes []string
	for i := range 100 {
		ranks, nodes = append(ranks, fmt.Sprint(2*i+3)), append(nodes, fmt.Sprint(i+2))
	}
	text := head + "[params]\nranks = [" + strings.Join(ranks, ", ") + "]\n[slurm]\nnodes = [" + strings.Join(nodes, ", ") + "]\n"
	want := "x.toml:6: slurm.nodes: ranks = 3, 5, 7, 9, 11, … (100 values) do not spread evenly over nodes = 2\n" +
		"x.toml:6: slurm.nodes: ranks = 5, 7, 11, 13, 17, … (66 values) do not spread evenly over nodes = 3\n" +
		"x.toml:6: slurm.nodes: ranks = 3, 5, 7, 9, 11, … (100 values) do not spread evenly over nodes = 4\n" +
		"x.toml:6: slurm.nodes: ranks do not fit nodes = 5, 6, 7, 8, 9, … (97 values) either"
	if _, err := harness.Parse("x.toml", []byte(text)); errText(err) != want {
		t.Errorf("Parse error =\n%s\nwant\n%s", errText(err), want)
	}
	_, err := harness.Parse("x.toml", []byte("max_points = 100\n"+text))
	var list lineerr.Errors
	if !errors.As(err, &list) || len(list) != 1 || !errors.Is(err, harness.ErrTooLarge) {
		t.Errorf("Parse error with max_points = 100 =\n%s\nwant only the max_points error", errText(err))
	}
}
