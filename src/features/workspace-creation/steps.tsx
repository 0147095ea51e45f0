import { PageFrame } from '../../components/PageFrame';

export function NameStep() {
  return (
    <PageFrame title="Name your workspace" description="Teams usually name it after the brand or client." />
  );
}

export function LanguageStep() {
  return (
    <PageFrame title="Content language" description="The main language of the content you will analyse." />
  );
}

export function UserInfoStep() {
  return <PageFrame title="About you" description="How your teammates will see you." />;
}
