// Package ci recognises the CI system a run is in from its environment and
// describes the run with the OpenTelemetry CI/CD and VCS semantic
// conventions, so that a trace can be found by pipeline, job, branch or
// commit.
package ci

import (
	"path"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
)

// System names the CI system (cursor.ci.system): the conventions have no
// attribute for it.
const System = attribute.Key("cursor.ci.system")

// Detect returns the attributes of the CI run getenv describes, or nil
// outside a CI system it knows: GitHub Actions, GitLab CI, Buildkite,
// CircleCI, Jenkins.
func Detect(getenv func(string) string) []attribute.KeyValue {
	var r run
	switch {
	case getenv("GITHUB_ACTIONS") == "true":
		r = githubActions(getenv)
	case getenv("GITLAB_CI") == "true":
		r = gitlab(getenv)
	case getenv("BUILDKITE") == "true":
		r = buildkite(getenv)
	case getenv("CIRCLECI") == "true":
		r = circleci(getenv)
	case getenv("JENKINS_URL") != "":
		r = jenkins(getenv)
	default:
		return nil
	}
	return r.attributes()
}

// run is what a CI system says of the run; empty fields are left out.
type run struct {
	system, provider                           string
	pipeline, runID, runURL                    string
	task, taskRunID, taskRunURL                string
	worker                                     string
	repoURL, repoName, owner                   string
	branch, refType, revision, baseRef, change string
}

func (r run) attributes() []attribute.KeyValue {
	var attrs []attribute.KeyValue
	add := func(k attribute.Key, v string) {
		if v != "" {
			attrs = append(attrs, k.String(v))
		}
	}
	add(System, r.system)
	add(semconv.CICDPipelineNameKey, r.pipeline)
	add(semconv.CICDPipelineRunIDKey, r.runID)
	add(semconv.CICDPipelineRunURLFullKey, r.runURL)
	add(semconv.CICDPipelineTaskNameKey, r.task)
	add(semconv.CICDPipelineTaskRunIDKey, r.taskRunID)
	add(semconv.CICDPipelineTaskRunURLFullKey, r.taskRunURL)
	add(semconv.CICDWorkerNameKey, r.worker)
	add(semconv.VCSProviderNameKey, r.provider)
	add(semconv.VCSRepositoryURLFullKey, r.repoURL)
	add(semconv.VCSRepositoryNameKey, r.repoName)
	add(semconv.VCSOwnerNameKey, r.owner)
	add(semconv.VCSRefHeadNameKey, r.branch)
	add(semconv.VCSRefHeadTypeKey, r.refType)
	add(semconv.VCSRefHeadRevisionKey, r.revision)
	add(semconv.VCSRefBaseNameKey, r.baseRef)
	add(semconv.VCSChangeIDKey, r.change)
	return attrs
}

func githubActions(env func(string) string) run {
	server, repo, runID := env("GITHUB_SERVER_URL"), env("GITHUB_REPOSITORY"), env("GITHUB_RUN_ID")
	r := run{
		system: "github_actions", provider: "github",
		pipeline: env("GITHUB_WORKFLOW"), runID: runID, task: env("GITHUB_JOB"), worker: env("RUNNER_NAME"),
		revision: env("GITHUB_SHA"), refType: env("GITHUB_REF_TYPE"), baseRef: env("GITHUB_BASE_REF"),
		branch: first(env("GITHUB_HEAD_REF"), env("GITHUB_REF_NAME")),
	}
	if server != "" && repo != "" {
		r.repoURL = server + "/" + repo
		if runID != "" {
			r.runURL = r.repoURL + "/actions/runs/" + runID
		}
	}
	r.owner, r.repoName, _ = strings.Cut(repo, "/")
	// refs/pull/123/merge names the pull request a run is for.
	if n, ok := strings.CutPrefix(env("GITHUB_REF"), "refs/pull/"); ok {
		r.change, _, _ = strings.Cut(n, "/")
	}
	return r
}

func gitlab(env func(string) string) run {
	return run{
		system: "gitlab_ci", provider: "gitlab",
		pipeline: first(env("CI_PIPELINE_NAME"), env("CI_PROJECT_PATH")), runID: env("CI_PIPELINE_ID"), runURL: env("CI_PIPELINE_URL"),
		task: env("CI_JOB_NAME"), taskRunID: env("CI_JOB_ID"), taskRunURL: env("CI_JOB_URL"), worker: env("CI_RUNNER_DESCRIPTION"),
		repoURL: env("CI_PROJECT_URL"), repoName: env("CI_PROJECT_NAME"), owner: env("CI_PROJECT_NAMESPACE"),
		branch:   first(env("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"), env("CI_COMMIT_BRANCH"), env("CI_COMMIT_TAG"), env("CI_COMMIT_REF_NAME")),
		refType:  refType(env("CI_COMMIT_TAG") != ""),
		revision: env("CI_COMMIT_SHA"), baseRef: env("CI_MERGE_REQUEST_TARGET_BRANCH_NAME"), change: env("CI_MERGE_REQUEST_IID"),
	}
}

func buildkite(env func(string) string) run {
	r := run{
		system:   "buildkite",
		pipeline: env("BUILDKITE_PIPELINE_SLUG"), runID: env("BUILDKITE_BUILD_ID"), runURL: env("BUILDKITE_BUILD_URL"),
		task: first(env("BUILDKITE_LABEL"), env("BUILDKITE_STEP_KEY")), taskRunID: env("BUILDKITE_JOB_ID"), worker: env("BUILDKITE_AGENT_NAME"),
		repoURL: env("BUILDKITE_REPO"), branch: first(env("BUILDKITE_TAG"), env("BUILDKITE_BRANCH")), refType: refType(env("BUILDKITE_TAG") != ""),
		revision: env("BUILDKITE_COMMIT"), baseRef: env("BUILDKITE_PULL_REQUEST_BASE_BRANCH"), owner: env("BUILDKITE_ORGANIZATION_SLUG"),
	}
	if pr := env("BUILDKITE_PULL_REQUEST"); pr != "false" {
		r.change = pr
	}
	r.provider, r.repoName = fromRepoURL(r.repoURL)
	return r
}

func circleci(env func(string) string) run {
	r := run{
		system:   "circleci",
		pipeline: env("CIRCLE_PROJECT_REPONAME"), runID: env("CIRCLE_WORKFLOW_ID"),
		task: env("CIRCLE_JOB"), taskRunID: env("CIRCLE_BUILD_NUM"), taskRunURL: env("CIRCLE_BUILD_URL"),
		repoURL: env("CIRCLE_REPOSITORY_URL"), repoName: env("CIRCLE_PROJECT_REPONAME"), owner: env("CIRCLE_PROJECT_USERNAME"),
		branch: first(env("CIRCLE_TAG"), env("CIRCLE_BRANCH")), refType: refType(env("CIRCLE_TAG") != ""), revision: env("CIRCLE_SHA1"),
		change: first(env("CIRCLE_PR_NUMBER"), path.Base(env("CIRCLE_PULL_REQUEST"))),
	}
	if r.change == "." || r.change == "/" {
		r.change = ""
	}
	r.provider, _ = fromRepoURL(r.repoURL)
	return r
}

func jenkins(env func(string) string) run {
	r := run{
		system:   "jenkins",
		pipeline: env("JOB_NAME"), runID: env("BUILD_NUMBER"), runURL: env("BUILD_URL"), task: env("STAGE_NAME"), worker: env("NODE_NAME"),
		repoURL: env("GIT_URL"), branch: first(env("CHANGE_BRANCH"), env("BRANCH_NAME"), strings.TrimPrefix(env("GIT_BRANCH"), "origin/")),
		revision: env("GIT_COMMIT"), baseRef: env("CHANGE_TARGET"), change: env("CHANGE_ID"),
	}
	r.provider, r.repoName = fromRepoURL(r.repoURL)
	return r
}

// fromRepoURL reads the provider and the repository's name from a clone URL
// (https://github.com/org/repo.git, git@gitlab.com:org/repo.git).
func fromRepoURL(u string) (provider, name string) {
	switch {
	case strings.Contains(u, "github.com"):
		provider = "github"
	case strings.Contains(u, "gitlab"):
		provider = "gitlab"
	case strings.Contains(u, "bitbucket.org"):
		provider = "bitbucket"
	}
	if u != "" {
		name = strings.TrimSuffix(path.Base(strings.ReplaceAll(u, ":", "/")), ".git")
	}
	return provider, name
}

func refType(tag bool) string {
	if tag {
		return "tag"
	}
	return "branch"
}

func first(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
