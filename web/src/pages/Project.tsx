// One project: its name and slug, and its tabs (entries and an entry's detail, queue, keys, install, sign-up
// page, stats, webhooks, email).
import { useEffect, useState } from 'preact/hooks';
import { api, type Project } from '../api.js';
import { ErrorMsg } from '../ui.js';
import { EntriesTab } from './Entries.js';
import { InstallTab } from './Install.js';
import { KeysTab } from './Keys.js';
import { SignupTab } from './Signup.js';
import { QueueTab } from './Queue.js';
import { StatsTab } from './Stats.js';
import { EmailsTab } from './Emails.js';
import { WebhooksTab } from './Webhooks.js';

const TABS = [
  ['entries', 'Entries'],
  ['queue', 'Queue'],
  ['keys', 'API keys'],
  ['install', 'Install'],
  ['signup', 'Sign-up page'],
  ['stats', 'Stats'],
  ['webhooks', 'Webhooks'],
  ['emails', 'Email'],
] as const;

export function ProjectPage({ projectId, tab, sub }: { projectId: string; tab: string; sub?: string | undefined }) {
  const [project, setProject] = useState<Project | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    setProject(null);
    setError(null);
    api.getProject(projectId).then(setProject, setError);
  }, [projectId]);
  const loaded = project?.projectId;
  useEffect(() => {
    if (loaded) document.querySelector<HTMLElement>('main h1')?.focus();
  }, [loaded]);
  // On a narrow screen the tab bar scrolls sideways: keep the current tab in view.
  useEffect(() => {
    document.querySelector<HTMLElement>('.tabs [aria-current="page"]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [loaded, tab]);

  // An unknown tab in the address (a typo, a link from another version) shows the entries, and the
  // address says so: it used to keep the unknown name while the Entries tab was shown.
  const known = TABS.some(([t]) => t === tab);
  useEffect(() => {
    if (project && !known) history.replaceState(null, '', `#/projects/${project.projectId}/entries`);
  }, [project, known]);

  if (error) {
    return (
      <>
        <h1 tabIndex={-1}>Project</h1>
        <ErrorMsg error={error} />
        <a href="#/projects">Back to projects</a>
      </>
    );
  }
  if (!project) return <p>Loading…</p>;
  const current = known ? tab : 'entries';

  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="#/projects">Projects</a> <span aria-hidden="true">/</span> <span>{project.name}</span>
      </nav>
      <h1 tabIndex={-1}>{project.name}</h1>
      <p class="muted">
        Slug <code>{project.slug}</code> · ID <code>{project.projectId}</code>
      </p>
      <nav aria-label="Project sections" class="tabs">
        {TABS.map(([t, label]) => (
          <a key={t} href={`#/projects/${project.projectId}/${t}`} aria-current={t === current ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      {current === 'entries' ? <EntriesTab project={project} entryId={sub} /> : null}
      {current === 'queue' ? <QueueTab project={project} /> : null}
      {current === 'keys' ? <KeysTab project={project} /> : null}
      {current === 'install' ? <InstallTab project={project} /> : null}
      {current === 'signup' ? <SignupTab project={project} /> : null}
      {current === 'stats' ? <StatsTab project={project} /> : null}
      {current === 'webhooks' ? <WebhooksTab project={project} /> : null}
      {current === 'emails' ? <EmailsTab project={project} /> : null}
    </>
  );
}
