package metrics

import (
	"cmp"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"

	"github.com/cursor-otel/cursor-otel/internal/summary"
)

// The surfaces a session comes from (cursor.surface).
const (
	SurfaceCLI   = "cli"   // a wrapped run
	SurfaceCI    = "ci"    // a wrapped run in a CI system cursor-otel knows
	SurfaceHooks = "hooks" // the editor's or the CLI's hooks
	SurfaceACP   = "acp"   // an editor speaking ACP to the agent
)

// Attribute names on every point.
var (
	SurfaceKey    = attribute.Key("cursor.surface")
	ClientNameKey = attribute.Key("cursor.client.name")
	RepositoryKey = semconv.VCSRepositoryNameKey
	UserHashKey   = attribute.Key("user.hash")
	UserEmailKey  = attribute.Key("user.email")
)

// Where is what every point says of where its sessions ran: none of it
// names a session, a path, a command or a prompt.
type Where struct {
	// Surface is the sessions' surface; "" reads each session's from its
	// spans (replay: a stream's is cli, the hooks', an ACP editor's).
	Surface string
	// Repository is vcs.repository.name as CI names it; "" reads it from
	// the git repository of the session's work directory, else WorkDir's.
	Repository string
	WorkDir    string
}

// Person is the person of a session, when the team opted in: user.hash
// (a salted SHA-256) or user.email; empty leaves the person out.
type Person struct {
	Hash, Email string
}

// repos remembers the repository of each work directory asked.
type repos struct {
	mu    sync.Mutex
	names map[string]string
}

// maxRepos bounds the directories remembered.
const maxRepos = 256

func (r *repos) of(dir string) string {
	if dir == "" {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if name, ok := r.names[dir]; ok {
		return name
	}
	name := RepositoryOf(dir)
	if r.names == nil {
		r.names = map[string]string{}
	}
	if len(r.names) < maxRepos {
		r.names[dir] = name
	}
	return name
}

// scopeOf is where the session a report tells ran.
func (w Where) scopeOf(rep summary.Report, who Person, rs *repos) scope {
	sc := scope{surface: w.Surface, repo: w.Repository, model: rep.Model, client: rep.Team.Client, userHash: who.Hash, userEmail: who.Email}
	if sc.surface == "" {
		switch rep.Team.Source {
		case "hooks":
			sc.surface = SurfaceHooks
		case "acp":
			sc.surface = SurfaceACP
		default:
			sc.surface = SurfaceCLI
		}
	}
	if sc.repo == "" {
		sc.repo = rs.of(cmp.Or(rep.Team.Cwd, w.WorkDir))
	}
	return sc
}
