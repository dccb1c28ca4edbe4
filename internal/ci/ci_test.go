package ci

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want map[string]string
	}{
		{"outside CI", map[string]string{"HOME": "/root"}, map[string]string{}},
		{
			"GitHub Actions, a pull request",
			map[string]string{
				"GITHUB_ACTIONS": "true", "GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "acme/queue-service",
				"GITHUB_WORKFLOW": "CI", "GITHUB_RUN_ID": "9876543210", "GITHUB_JOB": "agent-fix", "RUNNER_NAME": "GitHub Actions 12",
				"GITHUB_SHA": "4b825dc642cb6eb9a060e54bf8d69288fbee4904", "GITHUB_REF": "refs/pull/482/merge", "GITHUB_REF_TYPE": "branch",
				"GITHUB_HEAD_REF": "fix/drain", "GITHUB_REF_NAME": "482/merge", "GITHUB_BASE_REF": "main",
			},
			map[string]string{
				"cursor.ci.system": "github_actions", "cicd.pipeline.name": "CI", "cicd.pipeline.run.id": "9876543210",
				"cicd.pipeline.run.url.full": "https://github.com/acme/queue-service/actions/runs/9876543210",
				"cicd.pipeline.task.name":    "agent-fix", "cicd.worker.name": "GitHub Actions 12", "vcs.provider.name": "github",
				"vcs.repository.url.full": "https://github.com/acme/queue-service", "vcs.repository.name": "queue-service", "vcs.owner.name": "acme",
				"vcs.ref.head.name": "fix/drain", "vcs.ref.head.type": "branch", "vcs.ref.head.revision": "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
				"vcs.ref.base.name": "main", "vcs.change.id": "482",
			},
		},
		{
			"GitLab CI, a merge request",
			map[string]string{
				"GITLAB_CI": "true", "CI_PROJECT_PATH": "acme/queue-service", "CI_PIPELINE_ID": "1201", "CI_PIPELINE_URL": "https://gitlab.com/acme/queue-service/-/pipelines/1201",
				"CI_JOB_NAME": "agent", "CI_JOB_ID": "55", "CI_JOB_URL": "https://gitlab.com/acme/queue-service/-/jobs/55", "CI_RUNNER_DESCRIPTION": "shared-runner-3",
				"CI_PROJECT_URL": "https://gitlab.com/acme/queue-service", "CI_PROJECT_NAME": "queue-service", "CI_PROJECT_NAMESPACE": "acme",
				"CI_COMMIT_REF_NAME": "fix/drain", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "fix/drain", "CI_COMMIT_SHA": "abc123",
				"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main", "CI_MERGE_REQUEST_IID": "17",
			},
			map[string]string{
				"cursor.ci.system": "gitlab_ci", "cicd.pipeline.name": "acme/queue-service", "cicd.pipeline.run.id": "1201",
				"cicd.pipeline.run.url.full": "https://gitlab.com/acme/queue-service/-/pipelines/1201", "cicd.pipeline.task.name": "agent",
				"cicd.pipeline.task.run.id": "55", "cicd.pipeline.task.run.url.full": "https://gitlab.com/acme/queue-service/-/jobs/55",
				"cicd.worker.name": "shared-runner-3", "vcs.provider.name": "gitlab", "vcs.repository.url.full": "https://gitlab.com/acme/queue-service",
				"vcs.repository.name": "queue-service", "vcs.owner.name": "acme", "vcs.ref.head.name": "fix/drain", "vcs.ref.head.type": "branch",
				"vcs.ref.head.revision": "abc123", "vcs.ref.base.name": "main", "vcs.change.id": "17",
			},
		},
		{
			"Buildkite, a tag",
			map[string]string{
				"BUILDKITE": "true", "BUILDKITE_PIPELINE_SLUG": "queue-service", "BUILDKITE_BUILD_ID": "0190-uuid", "BUILDKITE_BUILD_URL": "https://buildkite.com/acme/queue-service/builds/88",
				"BUILDKITE_LABEL": ":robot: agent", "BUILDKITE_JOB_ID": "job-uuid", "BUILDKITE_AGENT_NAME": "agent-7", "BUILDKITE_REPO": "git@github.com:acme/queue-service.git",
				"BUILDKITE_BRANCH": "v1.4.0", "BUILDKITE_TAG": "v1.4.0", "BUILDKITE_COMMIT": "def456", "BUILDKITE_PULL_REQUEST": "false", "BUILDKITE_ORGANIZATION_SLUG": "acme",
			},
			map[string]string{
				"cursor.ci.system": "buildkite", "cicd.pipeline.name": "queue-service", "cicd.pipeline.run.id": "0190-uuid",
				"cicd.pipeline.run.url.full": "https://buildkite.com/acme/queue-service/builds/88", "cicd.pipeline.task.name": ":robot: agent",
				"cicd.pipeline.task.run.id": "job-uuid", "cicd.worker.name": "agent-7", "vcs.provider.name": "github",
				"vcs.repository.url.full": "git@github.com:acme/queue-service.git", "vcs.repository.name": "queue-service", "vcs.owner.name": "acme",
				"vcs.ref.head.name": "v1.4.0", "vcs.ref.head.type": "tag", "vcs.ref.head.revision": "def456",
			},
		},
		{
			"CircleCI",
			map[string]string{
				"CIRCLECI": "true", "CIRCLE_PROJECT_REPONAME": "queue-service", "CIRCLE_PROJECT_USERNAME": "acme", "CIRCLE_WORKFLOW_ID": "wf-1",
				"CIRCLE_JOB": "agent", "CIRCLE_BUILD_NUM": "301", "CIRCLE_BUILD_URL": "https://circleci.com/gh/acme/queue-service/301",
				"CIRCLE_REPOSITORY_URL": "git@github.com:acme/queue-service.git", "CIRCLE_BRANCH": "fix/drain", "CIRCLE_SHA1": "789abc",
				"CIRCLE_PULL_REQUEST": "https://github.com/acme/queue-service/pull/482",
			},
			map[string]string{
				"cursor.ci.system": "circleci", "cicd.pipeline.name": "queue-service", "cicd.pipeline.run.id": "wf-1", "cicd.pipeline.task.name": "agent",
				"cicd.pipeline.task.run.id": "301", "cicd.pipeline.task.run.url.full": "https://circleci.com/gh/acme/queue-service/301",
				"vcs.provider.name": "github", "vcs.repository.url.full": "git@github.com:acme/queue-service.git", "vcs.repository.name": "queue-service",
				"vcs.owner.name": "acme", "vcs.ref.head.name": "fix/drain", "vcs.ref.head.type": "branch", "vcs.ref.head.revision": "789abc", "vcs.change.id": "482",
			},
		},
		{
			"Jenkins, a multibranch pull request",
			map[string]string{
				"JENKINS_URL": "https://jenkins.acme.dev/", "JOB_NAME": "queue-service/PR-482", "BUILD_NUMBER": "12", "BUILD_URL": "https://jenkins.acme.dev/job/queue-service/job/PR-482/12/",
				"STAGE_NAME": "Agent", "NODE_NAME": "linux-4", "GIT_URL": "https://gitlab.acme.dev/acme/queue-service.git", "GIT_BRANCH": "origin/PR-482",
				"CHANGE_BRANCH": "fix/drain", "CHANGE_TARGET": "main", "CHANGE_ID": "482", "GIT_COMMIT": "0a1b2c",
			},
			map[string]string{
				"cursor.ci.system": "jenkins", "cicd.pipeline.name": "queue-service/PR-482", "cicd.pipeline.run.id": "12",
				"cicd.pipeline.run.url.full": "https://jenkins.acme.dev/job/queue-service/job/PR-482/12/", "cicd.pipeline.task.name": "Agent",
				"cicd.worker.name": "linux-4", "vcs.provider.name": "gitlab", "vcs.repository.url.full": "https://gitlab.acme.dev/acme/queue-service.git",
				"vcs.repository.name": "queue-service", "vcs.ref.head.name": "fix/drain", "vcs.ref.head.revision": "0a1b2c", "vcs.ref.base.name": "main", "vcs.change.id": "482",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]string{}
			for _, a := range Detect(func(k string) string { return tt.env[k] }) {
				got[string(a.Key)] = a.Value.AsString()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Detect (-want +got):\n%s", diff)
			}
		})
	}
}
