import { installValidationMessages } from '@/lib/validation-messages';

installValidationMessages();
