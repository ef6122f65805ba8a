import { accountJourney } from './account-journey';

accountJourney(['en']);
